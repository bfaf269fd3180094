/**
 * Simulated Coinbase users: the payers (and disbursement recipients) who hold
 * a Coinbase account. The platform meets them only through what Coinbase's
 * own login gives a payer's app — an OAuth access token and the id of an MFA
 * challenge the person passed — so the sandbox makes both through its admin
 * API (/_sandbox/coinbase-users) and checks them here.
 *
 * A user belongs to one project and holds stablecoin balances, each a total
 * and a held part (available = total − held), as the balances endpoint shows
 * them. Authorizing a session holds its amount; a capture spends the hold, a
 * void releases it, a refund or a disbursement credits the total.
 *
 * Access tokens and challenges expire on the sandbox clock; a challenge is
 * spent by the authorization that uses it.
 */
import type { Schema } from "../../contract/types.js";
import { apiError } from "../../errors/catalogue.js";
import { declareCollection } from "../../store/collections.js";
import type { ProjectTx, Store } from "../../store/store.js";
import { custodialAsset } from "../shared/custodialAssets.js";
import { fromUnits, toUnits } from "../shared/decimal.js";

/** The assets a Coinbase user holds here: those a payment session asks for. */
export const COINBASE_USER_ASSETS = ["usdc", "eurc"] as const;
export const SCOPE_BALANCE_READ = "coinbase:stablecoins:balance-read";
export const SCOPE_PAYMENT_CREATE = "coinbase:stablecoins:payment-create";
const COINBASE_SCOPES = [SCOPE_BALANCE_READ, SCOPE_PAYMENT_CREATE] as const;
/** A Coinbase OAuth access token lives one hour. */
const ACCESS_TOKEN_LIFETIME_MS = 60 * 60 * 1000;
/** A passed MFA challenge must be used within five minutes. */
const CHALLENGE_LIFETIME_MS = 5 * 60 * 1000;

export interface CoinbaseUserRecord {
  coinbaseUserId: string;
  email?: string;
  /** Smallest units per asset symbol. */
  balances: Record<string, { total: string; held: string }>;
  createdAt: string;
}

interface AccessTokenRecord {
  token: string;
  coinbaseUserId: string;
  scopes: string[];
  expiresAtMs: number;
}

interface ChallengeRecord {
  authorizationId: string;
  coinbaseUserId: string;
  expiresAtMs: number;
  /** The authorization that spent it. */
  usedBy?: string;
}

const COINBASE_USERS = declareCollection<CoinbaseUserRecord>("coinbaseUsers", {
  order: "insertion",
  indexes: { email: (u) => u.email?.toLowerCase() },
});
const ACCESS_TOKENS = declareCollection<AccessTokenRecord>("coinbaseAccessTokens");
const CHALLENGES = declareCollection<ChallengeRecord>("coinbaseAuthorizationChallenges");

const coinbaseUsers = (store: ProjectTx) => store.collection(COINBASE_USERS);

export function findCoinbaseUser(store: ProjectTx, coinbaseUserId: string): CoinbaseUserRecord {
  const user = coinbaseUsers(store).get(coinbaseUserId);
  if (!user) throw apiError("not_found", `Coinbase user ${coinbaseUserId} was not found in this project.`);
  return user;
}

interface NewUser {
  email?: string;
  balances?: Partial<Record<string, string>>;
}

/** A new user with its starting balances (decimal strings per asset). */
export function createCoinbaseUser(store: ProjectTx, random: { hex(n: number): string }, nowIso: string, given: NewUser): CoinbaseUserRecord {
  if (given.email !== undefined && coinbaseUsers(store).findBy("email", given.email.toLowerCase())) {
    throw apiError("already_exists", `A Coinbase user with email ${given.email} already exists in this project.`);
  }
  const balances: CoinbaseUserRecord["balances"] = {};
  for (const [symbol, text] of Object.entries(given.balances ?? {})) {
    const asset = custodialAsset(symbol);
    if (!asset || !(COINBASE_USER_ASSETS as readonly string[]).includes(asset.symbol) || text === undefined) {
      throw apiError("invalid_request", `balances.${symbol}: a Coinbase user holds ${COINBASE_USER_ASSETS.join(" or ")} here.`);
    }
    const units = toUnits(text, asset.decimals);
    if (units === undefined) throw apiError("invalid_request", `balances.${symbol} ${text} is not a decimal with at most ${asset.decimals} decimals.`);
    balances[asset.symbol] = { total: units.toString(), held: "0" };
  }
  const user: CoinbaseUserRecord = {
    coinbaseUserId: `coinbase_user_${random.hex(12)}`,
    ...(given.email !== undefined ? { email: given.email } : {}),
    balances,
    createdAt: nowIso,
  };
  coinbaseUsers(store).insert(user.coinbaseUserId, user);
  return user;
}

/** A new access token of the user, with the scopes asked for (both when left out). */
export function issueAccessToken(
  store: ProjectTx,
  random: { hex(n: number): string },
  user: CoinbaseUserRecord,
  nowMs: number,
  scopes: readonly string[] = COINBASE_SCOPES,
): { accessToken: string; scopes: string[]; expiresAt: string } {
  const record: AccessTokenRecord = {
    token: `cbsbx_${random.hex(24)}`,
    coinbaseUserId: user.coinbaseUserId,
    scopes: [...scopes],
    expiresAtMs: nowMs + ACCESS_TOKEN_LIFETIME_MS,
  };
  store.collection(ACCESS_TOKENS).insert(record.token, record);
  return { accessToken: record.token, scopes: record.scopes, expiresAt: new Date(record.expiresAtMs).toISOString() };
}

/** An MFA challenge the user passed: a lowercase UUID v4, usable once before it expires. */
export function passChallenge(store: ProjectTx, random: { uuid(): string }, user: CoinbaseUserRecord, nowMs: number) {
  const record: ChallengeRecord = { authorizationId: random.uuid(), coinbaseUserId: user.coinbaseUserId, expiresAtMs: nowMs + CHALLENGE_LIFETIME_MS };
  store.collection(CHALLENGES).insert(record.authorizationId, record);
  return { authorizationId: record.authorizationId, expiresAt: new Date(record.expiresAtMs).toISOString() };
}

/** What a bearer token says about a payer: its user and project, or why it is refused; undefined when it is no Coinbase token of the sandbox. */
export type CoinbaseTokenCheck = { ok: true; projectId: string; coinbaseUserId: string; scopes: string[] } | { ok: false; message: string };

/** Finds the project that issued `token` (as the payment session's project is found) and checks its lifetime. */
export function checkCoinbaseToken(store: Store, token: string, nowMs: number): CoinbaseTokenCheck | undefined {
  for (const p of store.projects()) {
    const record = store.committedRecord(p.id, ACCESS_TOKENS, token);
    if (!record) continue;
    if (nowMs >= record.expiresAtMs) {
      return { ok: false, message: `The Coinbase access token expired at ${new Date(record.expiresAtMs).toISOString()}; sign the payer in again.` };
    }
    return { ok: true, projectId: p.id, coinbaseUserId: record.coinbaseUserId, scopes: record.scopes };
  }
  return undefined;
}

/** Spends the user's passed challenge for `authorizationRef`; refused when unknown, another user's, used or expired. */
export function spendChallenge(store: ProjectTx, coinbaseUserId: string, authorizationId: string, nowMs: number, authorizationRef: string): void {
  const challenges = store.collection(CHALLENGES);
  const c = challenges.get(authorizationId);
  const why =
    !c || c.coinbaseUserId !== coinbaseUserId
      ? "is not one this payer passed"
      : c.usedBy
        ? `was already used by ${c.usedBy}`
        : nowMs >= c.expiresAtMs
          ? `expired at ${new Date(c.expiresAtMs).toISOString()}`
          : undefined;
  if (why) throw apiError("mfa_challenge_not_found", `The MFA challenge ${authorizationId} (cb-authz-id) ${why}; the payer passes a new one.`);
  challenges.put(authorizationId, { ...c!, usedBy: authorizationRef });
}

function balanceOf(user: CoinbaseUserRecord, asset: string) {
  const b = user.balances[asset];
  return { total: BigInt(b?.total ?? "0"), held: BigInt(b?.held ?? "0") };
}

/** Changes one balance of the user by the given deltas (units). */
function adjust(store: ProjectTx, coinbaseUserId: string, asset: string, totalDelta: bigint, heldDelta: bigint): void {
  const user = coinbaseUsers(store).get(coinbaseUserId);
  if (!user) return;
  const b = balanceOf(user, asset);
  const total = b.total + totalDelta;
  const held = b.held + heldDelta;
  if (total < 0n || held < 0n || held > total) throw new Error(`balance invariant broken for ${coinbaseUserId} ${asset}: total ${total}, held ${held}`);
  coinbaseUsers(store).put(coinbaseUserId, { ...user, balances: { ...user.balances, [asset]: { total: total.toString(), held: held.toString() } } });
}

export const availableOf = (user: CoinbaseUserRecord, asset: string) => {
  const b = balanceOf(user, asset);
  return b.total - b.held;
};

/** Holds `units` for an authorization (the caller checked they are available). */
export const holdCoinbaseFunds = (store: ProjectTx, userId: string, asset: string, units: bigint) => adjust(store, userId, asset, 0n, units);
/** Gives held funds back (a void, what a final capture leaves). */
export const releaseCoinbaseHold = (store: ProjectTx, userId: string, asset: string, units: bigint) => adjust(store, userId, asset, 0n, -units);
/** Spends held funds (a capture). */
export const spendCoinbaseHold = (store: ProjectTx, userId: string, asset: string, units: bigint) => adjust(store, userId, asset, -units, -units);
/** Pays the user (a refund, a disbursement); a user this project does not have is paid inside Coinbase, unseen. */
export const creditCoinbaseUser = (store: ProjectTx, userId: string, asset: string, units: bigint) => adjust(store, userId, asset, units, 0n);

/** The user's balances as the contract's Balances: always USDC first, then every other asset the user has held. */
export function coinbaseBalancesView(user: CoinbaseUserRecord): Schema<"Balances"> {
  const symbols = [
    "usdc",
    ...Object.keys(user.balances)
      .filter((s) => s !== "usdc")
      .sort(),
  ];
  return {
    balances: symbols.map((symbol) => {
      const asset = custodialAsset(symbol)!;
      const b = balanceOf(user, symbol);
      return {
        asset: { symbol: asset.symbol, type: asset.type, name: asset.name, decimals: asset.decimals },
        amount: { [asset.symbol]: { available: fromUnits(b.total - b.held, asset), total: fromUnits(b.total, asset) } },
      };
    }),
  };
}
