/**
 * An init file's server accounts (`evmAccounts`, `solanaAccounts`) and their balances: the bulk of a large file.
 * The records are the ones the create and import operations make, in the same order, with the same checks and
 * refusals; what changes is where the time goes:
 *
 * - keys are drawn from the injected randomness as the operations draw them (every EVM account's in order, then
 *   every Solana account's: nothing draws between them), and what follows from a key (addresses, associated token
 *   accounts) is derived on helper threads (deriveThreads.ts) while the records are written;
 * - a name is not checked against the contract entry by entry: the file's schema holds the contract's own pattern
 *   for it (a test keeps the two equal);
 * - a token credit to a Solana account that holds none of the token yet opens its associated token account
 *   directly, and the mint's supply is written once for all of them rather than once per account.
 *
 * Anything else (a fixed key the operations refuse, a credit to a holder that has some of the token already, an
 * unknown token, an amount past a bound) goes through the operations themselves, which refuse or credit it as
 * they always did.
 */
import type { Hex } from "viem";
import { nextTurn } from "../byTurns.js";
import type { SupplyTally } from "../chain/credit.js";
import type { Clock } from "../clock.js";
import { viewSolanaAccount } from "../chain/solana/accounts.js";
import { type SolanaToken, TOKEN_PROGRAM } from "../chain/solana/tokens.js";
import { isValidEvmPrivateKey } from "../crypto/evm.js";
import type { Random } from "../random.js";
import { fromBase58 } from "../crypto/solana.js";
import { evmAccountOperations } from "../wallet/evm-accounts/accounts.js";
import { solanaAccountOperations } from "../wallet/solana-accounts/accounts.js";
import { PendingTx } from "../store/store.js";
import type { HandlerContext } from "../wallet/types.js";
import { BulkCredits, type SolanaHolder, splToken } from "./bulkCredits.js";
import { type DerivationRequest, type Derivations, deriveAccounts, type TokenAccountKey } from "./deriveThreads.js";
import { at, checkBody, credit, type EntryDeps, failedAt, operationsFor } from "./entries.js";
import type { Balances, ProjectContent } from "./model.js";
import { StateFileError } from "./read.js";

type Account = { name: string; privateKey?: string; balances?: Balances };

/** Accounts written between two turns of the event loop (each turn takes in the helper threads' answers). */
const YIELD_EVERY = 256;

/** The entries' SPL credits, in file order: each needs its associated token account. */
function splCredits(balances: Balances | undefined): Array<{ network: string; token: SolanaToken }> {
  const found: Array<{ network: string; token: SolanaToken }> = [];
  for (const [network, tokens] of Object.entries(balances ?? {})) {
    for (const symbol of Object.keys(tokens)) {
      const token = splToken(network, symbol);
      if (token) found.push({ network, token });
    }
  }
  return found;
}

/** An EVM key as the operations hold it (lowercase hex), or undefined when they would refuse it. */
function fixedEvmKey(privateKey: string): Hex | undefined {
  const raw = Buffer.from(privateKey.slice(2), "hex");
  return isValidEvmPrivateKey(raw) ? `0x${raw.toString("hex")}` : undefined;
}

/** A Solana seed from a fixed key (a 32-byte seed or a 64-byte secret key), or undefined when it is neither. */
function fixedSolanaSeed(privateKey: string): Uint8Array | undefined {
  const raw = fromBase58(privateKey);
  return raw.length === 32 || raw.length === 64 ? raw.subarray(0, 32) : undefined;
}

/** The entries as they were applied before: one operation each (for a sandbox whose create operations were replaced). */
async function throughOperations(file: string, path: string, content: ProjectContent, ctx: HandlerContext, deps: EntryDeps, supplies: SupplyTally) {
  const call = operationsFor(deps, ctx);
  const creditAll = async (where: string, address: string, balances: Balances | undefined) => {
    for (const [network, tokens] of Object.entries(balances ?? {}))
      for (const [token, amount] of Object.entries(tokens))
        await at(file, `${where}.balances.${network}.${token}`, () => credit(ctx, network, address, token, amount, supplies));
  };
  for (const [i, a] of (content.evmAccounts ?? []).entries()) {
    const where = `${path}.evmAccounts[${i}]`;
    const account = await at(file, where, () => {
      if (a.privateKey === undefined) return call("createEvmAccount", { name: a.name });
      checkBody(deps, "createEvmAccount", { name: a.name });
      return evmAccountOperations.importKey(Buffer.from(a.privateKey.slice(2), "hex"), { name: a.name }, ctx).body;
    });
    await creditAll(where, account.address as string, a.balances);
  }
  for (const [i, a] of (content.solanaAccounts ?? []).entries()) {
    const where = `${path}.solanaAccounts[${i}]`;
    const account = await at(file, where, () => {
      if (a.privateKey === undefined) return call("createSolanaAccount", { name: a.name });
      const raw = fromBase58(a.privateKey);
      if (raw.length !== 32 && raw.length !== 64) throw new Error(`privateKey is ${raw.length} bytes; expected a 32-byte seed or a 64-byte secret key`);
      checkBody(deps, "createSolanaAccount", { name: a.name });
      return solanaAccountOperations.importKey(raw.subarray(0, 32), { name: a.name }, ctx).body;
    });
    await creditAll(where, account.address as string, a.balances);
  }
}

/**
 * `count` new EVM keys, drawn as the create operation draws them one after the other (32 bytes, drawn again while they
 * are no secp256k1 scalar): the seeded stream gives the same bytes whatever the sizes of the draws, so one draw for
 * all of them gives the same keys without an array per key.
 */
function* drawEvmKeys(random: Random, count: number): Generator<Hex> {
  let pool = random.bytes(32 * count);
  let at = 0;
  for (let made = 0; made < count; ) {
    if (at === pool.length) {
      // A block refused on the way (odds of 2^-128 each): the next key is the stream's next 32 bytes.
      pool = random.bytes(32);
      at = 0;
    }
    const key = pool.subarray(at, at + 32);
    at += 32;
    // A first byte from 0x01 to 0xfe is a scalar in range at once (the curve's order begins with 0xff); the rest, one
    // key in 128, are checked in full (the full check goes through hex text and a bigint).
    if ((key[0]! === 0 || key[0]! === 0xff) && !isValidEvmPrivateKey(key)) continue;
    made++;
    yield `0x${Buffer.from(key.buffer, key.byteOffset, 32).toString("hex")}`;
  }
}

/** The clock with its ISO text made once per millisecond: an init file's records are made thousands to the millisecond. */
function isoOncePerMs(clock: Clock): Clock {
  let ms: number | undefined;
  let text = "";
  const iso = () => {
    const now = clock.now();
    if (now !== ms) {
      ms = now;
      text = new Date(now).toISOString();
    }
    return text;
  };
  return { ...clock, iso };
}

/** The keys of the accounts as applying them draws them: the EVM keys at once, the Solana seeds (after them) when asked. */
function drawKeys(evm: Account[], solana: Account[], random: Random, programOf: (network: string, mint: string) => string) {
  const newEvmKeys = drawEvmKeys(random, evm.filter((a) => a.privateKey === undefined).length);
  const evmKeys = evm.map((a) => (a.privateKey === undefined ? newEvmKeys.next().value! : fixedEvmKey(a.privateKey)));
  const drawSolana = () => {
    const newSeeds = random.bytes(32 * solana.filter((a) => a.privateKey === undefined).length);
    let drawn = 0;
    const solanaSeeds = solana.map((a) => (a.privateKey === undefined ? newSeeds.subarray(32 * drawn, 32 * ++drawn) : fixedSolanaSeed(a.privateKey)));
    const tokenAccounts = solana.map((a) =>
      splCredits(a.balances).map(({ network, token }) => ({ mint: token.mint, program: programOf(network, token.mint) })),
    );
    return { solanaSeeds, tokenAccounts };
  };
  return { evmKeys, drawSolana };
}

/** Accounts of a content drawn and set deriving ahead (deriveAccountsAhead), for applyServerAccounts to take. */
export interface AccountsAhead extends DerivationRequest {
  /** The content's lists of accounts (an entry of the file holds the same lists, not the same object). */
  of: Pick<ProjectContent, "evmAccounts" | "solanaAccounts">;
  derived: Derivations;
}

/** Below this many accounts nothing is drawn ahead: the threads would not be used (deriveThreads.ts). */
const AHEAD_FROM = 1024;

/** Whether the operations themselves make the accounts (a sandbox whose create operations were replaced). */
const throughTheOperations = (deps: Pick<EntryDeps, "handlers">) =>
  deps.handlers.createEvmAccount !== evmAccountOperations.create || deps.handlers.createSolanaAccount !== solanaAccountOperations.create;

/**
 * Draws the keys of the accounts of a file's content (parsed, perhaps not yet checked) from `random` as applying
 * them would draw them first thing, and starts deriving their addresses on the helper threads: the start-up runs
 * this while it checks the file and loads the contract and the rest, when the threads would otherwise wait (~1 s of
 * them at 100,000 accounts). Only a guess: applyServerAccounts draws the keys itself and takes these derivations
 * only when its keys are these. Undefined: nothing derived ahead (few accounts, or content that does not check out).
 */
export function deriveAccountsAhead(parsed: unknown, random: Random, deps: Pick<EntryDeps, "handlers">): AccountsAhead | undefined {
  const content = (typeof parsed === "object" && parsed !== null ? parsed : {}) as ProjectContent;
  const evm: Account[] = content.evmAccounts ?? [];
  const solana: Account[] = content.solanaAccounts ?? [];
  if (!Array.isArray(evm) || !Array.isArray(solana) || evm.length + solana.length < AHEAD_FROM || throughTheOperations(deps)) return undefined;
  // A mint not written yet is the Token program's; a mint the store or the file wrote otherwise fails the comparison.
  let keys: ReturnType<typeof drawKeys>;
  try {
    keys = drawKeys(evm, solana, random, () => TOKEN_PROGRAM);
  } catch {
    return undefined; // an entry the file's check refuses
  }
  let solanaPart: ReturnType<typeof keys.drawSolana> | undefined;
  const make = () => {
    try {
      solanaPart = keys.drawSolana();
    } catch {
      // The same: nothing of it is derived (the threads have taken the EVM keys already).
      return { solanaSeeds: new Array<undefined>(solana.length), tokenAccounts: solana.map(() => []) };
    }
    return solanaPart;
  };
  const derived = deriveAccounts({ evmKeys: keys.evmKeys, solanaSeeds: [], tokenAccounts: [] }, { count: solana.length, make }, { ahead: true });
  if (!solanaPart) {
    derived.close();
    return undefined;
  }
  return { of: { evmAccounts: content.evmAccounts, solanaAccounts: content.solanaAccounts }, evmKeys: keys.evmKeys, ...solanaPart, derived };
}

function sameBytes(a: Uint8Array | undefined, b: Uint8Array | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Whether a request is the one derived ahead, key for key and token account for token account. */
function sameKeys(ahead: DerivationRequest, request: DerivationRequest): boolean {
  const { evmKeys, solanaSeeds, tokenAccounts } = request;
  if (ahead.evmKeys.length !== evmKeys.length || ahead.solanaSeeds.length !== solanaSeeds.length) return false;
  for (let i = 0; i < evmKeys.length; i++) if (ahead.evmKeys[i] !== evmKeys[i]) return false;
  for (let i = 0; i < solanaSeeds.length; i++) {
    if (!sameBytes(ahead.solanaSeeds[i], solanaSeeds[i])) return false;
    const [mine, theirs] = [tokenAccounts[i]!, ahead.tokenAccounts[i]!];
    if (mine.length !== theirs.length || mine.some((t, k) => t.mint !== theirs[k]!.mint || t.program !== theirs[k]!.program)) return false;
  }
  return true;
}

/**
 * Applies the content's EVM and Solana accounts with their balances, inside the project's transaction; with what
 * was derived ahead for this content, when it drew the same keys.
 */
export async function applyServerAccounts(
  file: string,
  path: string,
  content: ProjectContent,
  ctx: HandlerContext,
  deps: EntryDeps,
  supplies: SupplyTally,
  ahead?: AccountsAhead,
): Promise<void> {
  const evm: Account[] = content.evmAccounts ?? [];
  const solana: Account[] = content.solanaAccounts ?? [];
  if (evm.length + solana.length === 0) return;
  if (throughTheOperations(deps)) return throughOperations(file, path, content, ctx, deps, supplies);

  // The token program of each mint as the first credit will find it (a mint not written yet is the Token program's).
  const programs = new Map<string, string>();
  const programOf = (network: string, mint: string) => {
    const id = `${network}|${mint}`;
    if (!programs.has(id)) programs.set(id, viewSolanaAccount(ctx.store, network, mint)?.owner ?? TOKEN_PROGRAM);
    return programs.get(id)!;
  };
  const { evmKeys, drawSolana } = drawKeys(evm, solana, ctx.random, programOf);
  let solanaSeeds: Array<Uint8Array | undefined> = [];
  let tokenAccounts: TokenAccountKey[][] = [];
  const takeSolana = () => {
    ({ solanaSeeds, tokenAccounts } = drawSolana());
    return { solanaSeeds, tokenAccounts };
  };
  let derived: Derivations;
  if (ahead && ahead.of.evmAccounts === content.evmAccounts && ahead.of.solanaAccounts === content.solanaAccounts) {
    takeSolana();
    if (sameKeys(ahead, { evmKeys, solanaSeeds, tokenAccounts })) derived = ahead.derived;
    else {
      // Something drew from the stream before these keys (a new project, a policy): what was derived ahead is not theirs.
      ahead.derived.close();
      derived = deriveAccounts({ evmKeys, solanaSeeds, tokenAccounts });
    }
  } else {
    // The Solana seeds are drawn (after the EVM keys, as the operations draw them) once the EVM keys went to the threads.
    derived = deriveAccounts({ evmKeys, solanaSeeds: [], tokenAccounts: [] }, { count: solana.length, make: takeSolana });
  }
  const credits = new BulkCredits(ctx.store, supplies);
  // Read before the bulk writes: whether the project holds accounts of each chain already.
  const evmChecks = evmAccountOperations.newAccountChecks(ctx);
  const solanaChecks = solanaAccountOperations.newAccountChecks(ctx);
  const creating: HandlerContext = { ...ctx, clock: isoOncePerMs(ctx.clock) };
  /** The JSON path of an account's entry (made only when it is named: a failure, a credit through the operations). */
  const entry = (list: "evmAccounts" | "solanaAccounts", i: number) => `${path}.${list}[${i}]`;
  /** The credits of one account: at once while each is the plain case, through the operations from the first that is not. */
  const creditAll = (
    list: "evmAccounts" | "solanaAccounts",
    i: number,
    address: string,
    balances: Balances | undefined,
    solanaHolder?: SolanaHolder,
  ): Promise<void> | undefined => {
    for (const network in balances) {
      const tokens = balances[network]!;
      for (const token in tokens) {
        if (credits.tryCredit(network, address, token, tokens[token]!, solanaHolder, true)) continue;
        return creditFrom(entry(list, i), address, balances!, { network, token }, solanaHolder);
      }
    }
    return undefined;
  };
  /** The credits of one account from `from` on (those before it are in): `from` through the operations, the rest as they come. */
  const creditFrom = async (where: string, address: string, balances: Balances, from: { network: string; token: string }, solanaHolder?: SolanaHolder) => {
    let reached = false;
    for (const [network, tokens] of Object.entries(balances)) {
      for (const [token, amount] of Object.entries(tokens)) {
        const first: boolean = !reached && network === from.network && token === from.token;
        reached ||= first;
        if (!reached || (!first && credits.tryCredit(network, address, token, amount, solanaHolder, true))) continue;
        credits.flush(); // the credit reads the mints as they are
        await at(file, `${where}.balances.${network}.${token}`, () => credit(ctx, network, address, token, amount, supplies));
      }
    }
  };
  // Every record below is made here or by the operations' own writers, fresh, and never touched after its write:
  // the transaction keeps them as they are rather than a copy of each.
  const writeAll = async () => {
    for (let i = 0; i < evm.length; i++) {
      // Now and then the loop lets the threads' answers in, so they get their next accounts while it writes.
      if (i % YIELD_EVERY === 0) await nextTurn();
      const a = evm[i]!;
      const privateKey = evmKeys[i];
      let address: string;
      if (privateKey === undefined) {
        // A fixed key that is no secp256k1 scalar: the import refuses it.
        const refused = () => evmAccountOperations.importKey(Buffer.from(a.privateKey!.slice(2), "hex"), { name: a.name }, ctx);
        address = (await at(file, entry("evmAccounts", i), refused)).body.address;
      } else {
        address = derived.evmAddressNow(i) ?? (await derived.evmAddress(i));
        try {
          evmAccountOperations.importDerived({ address: address as Hex, privateKey }, { name: a.name }, creating, evmChecks);
        } catch (error) {
          throw failedAt(file, entry("evmAccounts", i), error);
        }
      }
      const crediting = creditAll("evmAccounts", i, address, a.balances);
      if (crediting) await crediting;
    }
    for (let i = 0; i < solana.length; i++) {
      if (i % YIELD_EVERY === 0) await nextTurn();
      const a = solana[i]!;
      const seed = solanaSeeds[i];
      if (seed === undefined)
        throw new StateFileError(
          file,
          entry("solanaAccounts", i),
          `privateKey is ${fromBase58(a.privateKey!).length} bytes; expected a 32-byte seed or a 64-byte secret key`,
        );
      const solanaDerived = derived.solanaNow(i) ?? (await derived.solana(i));
      const key = { address: solanaDerived.address, seedHex: Buffer.from(seed.buffer, seed.byteOffset, seed.byteLength).toString("hex") };
      try {
        solanaAccountOperations.importDerived(key, { name: a.name }, creating, solanaChecks);
      } catch (error) {
        throw failedAt(file, entry("solanaAccounts", i), error);
      }
      const crediting = creditAll("solanaAccounts", i, key.address, a.balances, { derived: solanaDerived, asked: tokenAccounts[i]! });
      if (crediting) await crediting;
    }
    credits.flush();
  };
  try {
    await (ctx.store instanceof PendingTx ? ctx.store.handingOver(writeAll) : writeAll());
  } finally {
    derived.close();
  }
}
