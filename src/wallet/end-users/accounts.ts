/**
 * End User Accounts: signing and sending with an end user's accounts, by the
 * end user (their access token) or by the developer (API key) under an active
 * delegation grant; and the grants themselves. Project-scope policies apply,
 * with the signEndUser… and sendEndUser… operations.
 */

import { decodeSolanaTransaction, encodeSolanaTransaction, signSolanaBytes, signSolanaTransaction, toBase58 } from "../../crypto/solana.js";
import { evmAccountOf } from "../../crypto/evm.js";
import { readSolanaTransactionOn } from "../../chain/solana/index.js";
import { platformSendSolana } from "../solana-accounts/platformSend.js";
import { ApiError, apiError, withStatus } from "../../errors/catalogue.js";
import {
  parseUnsignedTransaction,
  readTypedData,
  signAndSendEvmTransaction,
  signTransaction,
  signTypedDataWith,
  transactionFacts,
  typedDataFacts,
} from "../evm-accounts/signing.js";
import { enforcePolicies } from "../policies/evaluate.js";
import type { PolicyFacts } from "../policies/facts.js";
import type { Handler, HandlerContext, RequestFacts } from "../types.js";
import { emitWebhookEvent } from "../events/emit.js";
import { emitWalletSend, emitWalletSigned, type WalletActor } from "../events/walletEvents.js";
import { activeGrant, assertDelegationEnabled, authorizeAccountUse, delegationIdOf, grants, grantsOf, grantState, type DelegationGrant } from "./delegation.js";
import { findEndUser, type EndUserRecord } from "../records/endUsers.js";

function evmAccountOfUser(user: EndUserRecord, address: string) {
  const account = user.evmAccounts.find((a) => a.address.toLowerCase() === address.toLowerCase());
  if (!account) throw apiError("not_found", `End user ${user.userId} has no EVM account ${address}.`);
  return account;
}

function solanaAccountOfUser(user: EndUserRecord, address: string) {
  const account = user.solanaAccounts.find((a) => a.address === address);
  if (!account) throw apiError("not_found", `End user ${user.userId} has no Solana account ${address}.`);
  return account;
}

/** Looks the user's account up, checks who is calling (the actor the webhook events name), and applies the project's policy. */
function prepare<T>(
  req: RequestFacts,
  ctx: HandlerContext,
  userId: string,
  address: string,
  find: (u: EndUserRecord, a: string) => T,
  operation: string,
  facts: PolicyFacts,
): T & { actor: WalletActor } {
  const user = findEndUser(ctx.store, userId);
  const account = find(user, address);
  const actor = authorizeAccountUse(req, ctx, user.userId, address);
  enforcePolicies(ctx.store, { operation, accountPolicies: [], facts });
  return { ...account, actor };
}

export const signEvmTransactionWithEndUserAccount: Handler<"signEvmTransactionWithEndUserAccount"> = async (req, ctx) => {
  const tx = parseUnsignedTransaction(req.body.transaction);
  const account = prepare(req, ctx, req.pathParams.userId, req.body.address, evmAccountOfUser, "signEndUserEvmTransaction", transactionFacts(tx, undefined));
  const signedTransaction = await signTransaction(account.privateKey, tx);
  emitWalletSigned(ctx, "wallet.transaction.signed", account.address, account.actor);
  return { status: 200, body: { signedTransaction } };
};

export const sendEvmTransactionWithEndUserAccount: Handler<"sendEvmTransactionWithEndUserAccount"> = async (req, ctx) => {
  const network = req.body.network;
  const tx = parseUnsignedTransaction(req.body.transaction);
  const account = prepare(req, ctx, req.pathParams.userId, req.body.address, evmAccountOfUser, "sendEndUserEvmTransaction", transactionFacts(tx, network));
  return { status: 200, body: { transactionHash: await signAndSendEvmTransaction(ctx, account, network, tx, account.actor) } };
};

export const signEvmMessageWithEndUserAccount: Handler<"signEvmMessageWithEndUserAccount"> = async (req, ctx) => {
  const message = req.body.message;
  const account = prepare(req, ctx, req.pathParams.userId, req.body.address, evmAccountOfUser, "signEndUserEvmMessage", { kind: "message", message });
  const signature = await evmAccountOf(account.privateKey).signMessage({ message });
  emitWalletSigned(ctx, "wallet.message.signed", account.address, account.actor);
  return { status: 200, body: { signature } };
};

export const signEvmTypedDataWithEndUserAccount: Handler<"signEvmTypedDataWithEndUserAccount"> = async (req, ctx) => {
  const typed = readTypedData(req.body.typedData);
  const account = prepare(req, ctx, req.pathParams.userId, req.body.address, evmAccountOfUser, "signEndUserEvmTypedData", typedDataFacts(typed));
  const signature = await signTypedDataWith(account.privateKey, typed);
  emitWalletSigned(ctx, "wallet.typed_data.signed", account.address, account.actor);
  return { status: 200, body: { signature } };
};

export const signSolanaMessageWithEndUserAccount: Handler<"signSolanaMessageWithEndUserAccount"> = (req, ctx) => {
  const message = req.body.message;
  const account = prepare(req, ctx, req.pathParams.userId, req.body.address, solanaAccountOfUser, "signEndUserSolMessage", { kind: "message", message });
  const signature = toBase58(signSolanaBytes(account, new TextEncoder().encode(message)));
  emitWalletSigned(ctx, "wallet.message.signed", account.address, account.actor);
  return { status: 200, body: { signature } };
};

export const signSolanaTransactionWithEndUserAccount: Handler<"signSolanaTransactionWithEndUserAccount"> = (req, ctx) => {
  const tx = decodeSolanaTransaction(req.body.transaction);
  const account = prepare(req, ctx, req.pathParams.userId, req.body.address, solanaAccountOfUser, "signEndUserSolTransaction", {
    kind: "solanaTransaction",
    tx: readSolanaTransactionOn(ctx.store, tx, req.body.network),
  });
  const signedTransaction = encodeSolanaTransaction(signSolanaTransaction(tx, account));
  emitWalletSigned(ctx, "wallet.transaction.signed", account.address, account.actor);
  return { status: 200, body: { signedTransaction } };
};

export const sendSolanaTransactionWithEndUserAccount: Handler<"sendSolanaTransactionWithEndUserAccount"> = (req, ctx) => {
  const network = req.body.network;
  const tx = decodeSolanaTransaction(req.body.transaction);
  const facts = readSolanaTransactionOn(ctx.store, tx, network);
  const account = prepare(req, ctx, req.pathParams.userId, req.body.address, solanaAccountOfUser, "sendEndUserSolTransaction", {
    kind: "solanaTransaction",
    tx: facts,
    network,
  });
  const signature = platformSendSolana({
    store: ctx.store,
    clock: ctx.clock,
    network,
    tx,
    keyOf: (signer) => (signer === account.address ? account : undefined),
    useCdpSponsor: req.body.useCdpSponsor === true,
  });
  emitWalletSend(ctx, { chain: "solana", hash: signature, network, address: account.address, actor: account.actor });
  return { status: 200, body: { transactionSignature: signature } };
};

// Delegation grants.

function requireOwnToken(req: RequestFacts, userId: string): void {
  if (req.auth.kind === "endUser" && req.auth.endUserId !== userId)
    throw apiError("unauthorized", `The access token belongs to another end user, not ${userId}.`);
}

/**
 * The account a grant for `address` is about: the address itself, or for a
 * smart account its owner EOA (the platform scopes such grants to the owner).
 */
function grantAddress(user: EndUserRecord, address: string): string {
  const smart = user.evmSmartAccounts.find((a) => a.address.toLowerCase() === address.toLowerCase());
  if (smart) return smart.ownerAddresses[0]!;
  const evm = user.evmAccounts.find((a) => a.address.toLowerCase() === address.toLowerCase());
  if (evm) return evm.address;
  if (user.solanaAccounts.some((a) => a.address === address)) return address;
  throw apiError("not_found", `End user ${user.userId} has no account ${address}.`);
}

/**
 * The account an account-scoped grant made outside a request is about (the admin API, an init file): the one named
 * (an address of the end user's), else the end user's first EVM account, else its first Solana account.
 */
export function accountScopeOf(user: EndUserRecord, address?: string): string {
  if (address !== undefined) return grantAddress(user, address);
  const first = user.evmAccounts[0]?.address ?? user.solanaAccounts[0]?.address;
  if (first === undefined) throw apiError("invalid_request", `End user ${user.userId} has no account to scope a delegation to.`);
  return first;
}

/** Creates a grant after the checks every grant needs; `address` undefined for a project-wide grant. */
export function createGrant(
  ctx: Pick<HandlerContext, "store" | "clock" | "random">,
  user: EndUserRecord,
  address: string | undefined,
  expiresAt: unknown,
): DelegationGrant {
  const expiresAtMs = typeof expiresAt === "string" ? Date.parse(expiresAt) : Number.NaN;
  if (!Number.isFinite(expiresAtMs)) throw apiError("invalid_request", `expiresAt must be an ISO-8601 timestamp, got ${JSON.stringify(expiresAt)}.`);
  if (!(expiresAtMs > ctx.clock.now())) throw apiError("invalid_request", "expiresAt must be in the future.");
  const current = activeGrant(ctx, user.userId);
  if (current)
    throw apiError(
      "already_exists",
      `End user ${user.userId} already has an active delegation (until ${new Date(current.expiresAtMs).toISOString()}); revoke it first.`,
    );
  const grant: DelegationGrant = { id: ctx.random.uuid(), userId: user.userId, address, createdAtMs: ctx.clock.now(), expiresAtMs };
  grants(ctx.store).insert(grant.id, grant);
  const data = {
    delegation_id: delegationIdOf(grant),
    user_id: grant.userId,
    expires_at: new Date(expiresAtMs).toISOString(),
    created_at: new Date(grant.createdAtMs).toISOString(),
  };
  emitWebhookEvent(ctx, { eventType: "wallet.delegation.created", data });
  return grant;
}

export const createDelegationForEndUserAccount: Handler<"createDelegationForEndUserAccount"> = (req, ctx) => {
  const user = findEndUser(ctx.store, req.pathParams.userId);
  requireOwnToken(req, user.userId);
  try {
    assertDelegationEnabled(ctx);
  } catch (error) {
    // The platform's contract declares no 403 for this operation: a project that would never honour the grant
    // refuses it as a bad request.
    throw error instanceof ApiError ? withStatus(error, 400) : error;
  }
  const grant = createGrant(ctx, user, grantAddress(user, req.pathParams.address), req.body.expiresAt);
  return { status: 201, body: { expiresAt: new Date(grant.expiresAtMs).toISOString() } };
};

/** The end user's project-wide grant: the developer may sign with any of their accounts, present or future, until expiresAt. */
export const createDelegationForEndUser: Handler<"createDelegationForEndUser"> = (req, ctx) => {
  const user = findEndUser(ctx.store, req.pathParams.userId);
  requireOwnToken(req, user.userId);
  assertDelegationEnabled(ctx);
  const grant = createGrant(ctx, user, undefined, req.body.expiresAt);
  return { status: 201, body: { expiresAt: new Date(grant.expiresAtMs).toISOString() } };
};

const isActive = (ctx: HandlerContext) => (g: DelegationGrant) => grantState(g, ctx.clock.now()) === "active";

function activeForAccount(ctx: HandlerContext, user: EndUserRecord, address: string): DelegationGrant {
  const canonical = grantAddress(user, address);
  const grant = grantsOf(ctx, user.userId).find(
    (g) =>
      isActive(ctx)(g) &&
      g.address !== undefined &&
      (g.address.startsWith("0x") ? g.address.toLowerCase() === canonical.toLowerCase() : g.address === canonical),
  );
  if (!grant) throw apiError("not_found", `No active delegation for end user ${user.userId} and ${address}.`);
  return grant;
}

export const getDelegationForEndUserAccount: Handler<"getDelegationForEndUserAccount"> = (req, ctx) => {
  const user = findEndUser(ctx.store, req.pathParams.userId);
  requireOwnToken(req, user.userId);
  const grant = activeForAccount(ctx, user, req.pathParams.address);
  return { status: 200, body: { expiresAt: new Date(grant.expiresAtMs).toISOString() } };
};

/** The user's active delegation, whatever its scope (there is at most one). */
export const getDelegationForEndUser: Handler<"getDelegationForEndUser"> = (req, ctx) => {
  const user = findEndUser(ctx.store, req.pathParams.userId);
  requireOwnToken(req, user.userId);
  const grant = grantsOf(ctx, user.userId).find(isActive(ctx));
  if (!grant) throw apiError("not_found", `End user ${user.userId} has no active delegation.`);
  return { status: 200, body: { expiresAt: new Date(grant.expiresAtMs).toISOString() } };
};

function revoke(ctx: HandlerContext, ended: DelegationGrant[]) {
  for (const grant of ended) {
    grants(ctx.store).put(grant.id, { ...grant, revokedAtMs: ctx.clock.now() });
    emitWebhookEvent(ctx, {
      eventType: "wallet.delegation.revoked",
      data: { delegation_id: delegationIdOf(grant), user_id: grant.userId, revoked_at: ctx.clock.iso() },
    });
  }
  return { status: 204 as const };
}

export const revokeDelegationForEndUserAccount: Handler<"revokeDelegationForEndUserAccount"> = (req, ctx) => {
  const user = findEndUser(ctx.store, req.pathParams.userId);
  requireOwnToken(req, user.userId);
  return revoke(ctx, [activeForAccount(ctx, user, req.pathParams.address)]);
};

/** Revokes every active delegation of the user, project-wide and account-scoped. */
export const revokeDelegationForEndUser: Handler<"revokeDelegationForEndUser"> = (req, ctx) => {
  const user = findEndUser(ctx.store, req.pathParams.userId);
  requireOwnToken(req, user.userId);
  const active = grantsOf(ctx, user.userId).filter(isActive(ctx));
  if (active.length === 0) throw apiError("not_found", `End user ${user.userId} has no active delegation to revoke.`);
  return revoke(ctx, active);
};
