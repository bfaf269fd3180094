/**
 * The project's Solana accounts, per network: the one place SOL and token balances live. A wallet's SOL is its
 * system account's lamports; its tokens are the `amount` of the token accounts it owns (an SPL Token or
 * Token-2022 account: 165 bytes, owner at 32, amount at 64); a mint is an 82-byte account. The runtime
 * (chain/solana/runtime.ts) executes transactions against these accounts and writes back what they changed, so a
 * balance read here and an account a client reads over JSON-RPC are the same bytes. Records hold the account
 * data as base64, which is what `--data` and snapshots keep. An owner → token accounts index saves scans.
 */
import { createHash } from "node:crypto";
import { declareCollection } from "../../store/collections.js";
import type { ProjectTx } from "../../store/store.js";
import { fromBase58, toBase58 } from "../../crypto/solana.js";
import { associatedTokenAddress, bytesOf } from "./addresses.js";
import { isTokenProgram, SYSTEM_PROGRAM, TOKEN_PROGRAM, solanaTokenByMint } from "./tokens.js";

export interface SolanaAccountState {
  network: string;
  address: string;
  /** Decimal string: lamports are a u64. */
  lamports: string;
  owner: string;
  /** The account's data, base64. */
  data: string;
  executable?: boolean;
}

const SOLANA_CHAIN_ACCOUNTS = declareCollection<SolanaAccountState>("solanaChainAccounts");
/** `network|owner` → the token accounts that owner holds (any mint, either token program). */
const TOKEN_ACCOUNTS_BY_OWNER = declareCollection<{ accounts: string[] }>("solanaTokenAccountsByOwner");

const accounts = (store: ProjectTx) => store.collection(SOLANA_CHAIN_ACCOUNTS);
const ownerIndex = (store: ProjectTx) => store.collection(TOKEN_ACCOUNTS_BY_OWNER);
const keyOf = (network: string, address: string) => `${network}|${address}`;

const TOKEN_ACCOUNT_SIZE = 165;
const MINT_SIZE = 82;
const U64_MAX = 2n ** 64n - 1n;

/** The rent-exempt minimum of an account of `size` bytes: (128 + size) bytes at 3,480 lamports a byte-year, for two years. */
export const rentExemptMinimum = (size: number): bigint => BigInt((128 + size) * 3480 * 2);

/** The sandbox's stand-in mint authority for the tokens it knows (the real ones belong to the issuers): any fixed key. */
const SANDBOX_MINT_AUTHORITY = toBase58(createHash("sha256").update("cdp-sandbox:mint-authority").digest());

export function readSolanaAccount(store: ProjectTx, network: string, address: string): SolanaAccountState | undefined {
  return accounts(store).get(keyOf(network, address));
}

/** Every account of a network the project holds, optionally only those a program owns (a scan: getProgramAccounts). */
export function solanaAccountsOwnedBy(store: ProjectTx, network: string, program?: string): SolanaAccountState[] {
  return accounts(store).filter((a) => a.network === network && (program === undefined || a.owner === program));
}

/** The wallet a token account belongs to (bytes 32..64), or undefined when the account is no token account. */
export function tokenAccountOwner(state: Pick<SolanaAccountState, "owner" | "data">): string | undefined {
  if (!isTokenProgram(state.owner)) return undefined;
  const data = Buffer.from(state.data, "base64");
  // A Token-2022 mint with extensions is longer than 165 bytes too: its account-type byte (at 165) says which it is.
  if (data.length < TOKEN_ACCOUNT_SIZE || (data.length > TOKEN_ACCOUNT_SIZE && data[TOKEN_ACCOUNT_SIZE] !== 2)) return undefined;
  return toBase58(data.subarray(32, 64));
}

/**
 * Writes an account as the runtime or a payout left it: an account with no lamports is gone (as on Solana),
 * and the owner → token accounts index follows.
 */
export function writeSolanaAccount(store: ProjectTx, state: SolanaAccountState): void {
  writeAccount(store, state, BigInt(state.lamports) === 0n ? undefined : tokenAccountOwner(state));
}

/** writeSolanaAccount with the wallet the account belongs to as a token account (`newOwner`) known to the caller. */
function writeAccount(store: ProjectTx, state: SolanaAccountState, newOwner: string | undefined): void {
  const key = keyOf(state.network, state.address);
  const before = accounts(store).get(key);
  const oldOwner = before ? tokenAccountOwner(before) : undefined;
  const gone = BigInt(state.lamports) === 0n;
  if (gone) {
    if (before) accounts(store).delete(key);
  } else {
    accounts(store).put(key, state);
  }
  if (oldOwner !== newOwner) {
    if (oldOwner) {
      const list = tokenAccountsOf(store, state.network, oldOwner).filter((a) => a !== state.address);
      if (list.length === 0) ownerIndex(store).delete(keyOf(state.network, oldOwner));
      else ownerIndex(store).put(keyOf(state.network, oldOwner), { accounts: list });
    }
    if (newOwner) ownerIndex(store).put(keyOf(state.network, newOwner), { accounts: [...tokenAccountsOf(store, state.network, newOwner), state.address] });
  }
}

/** The addresses of the token accounts `owner` holds on `network`, from the index. */
export function tokenAccountsOf(store: ProjectTx, network: string, owner: string): string[] {
  return ownerIndex(store).get(keyOf(network, owner))?.accounts ?? [];
}

export interface TokenAccountFields {
  mint: string;
  owner: string;
  amount: bigint;
  delegate?: string;
  state: number;
  /** Rent-exempt reserve of a wrapped-SOL account (its amount is its lamports above that). */
  isNative?: bigint;
  delegatedAmount: bigint;
  closeAuthority?: string;
}

/** Unpacks an SPL token account's first 165 bytes. */
export function decodeTokenAccount(data: Buffer): TokenAccountFields {
  const option = (at: number) => (data.readUInt32LE(at) === 1 ? toBase58(data.subarray(at + 4, at + 36)) : undefined);
  return {
    mint: toBase58(data.subarray(0, 32)),
    owner: toBase58(data.subarray(32, 64)),
    amount: data.readBigUInt64LE(64),
    delegate: option(72),
    state: data[108]!,
    isNative: data.readUInt32LE(109) === 1 ? data.readBigUInt64LE(113) : undefined,
    delegatedAmount: data.readBigUInt64LE(121),
    closeAuthority: option(129),
  };
}

/** A fresh, initialized token account of `owner` for `mint` holding `amount` (the owner's bytes when the caller has them). */
function encodeTokenAccount(mint: string, owner: string, amount: bigint, ownerBytes: Uint8Array = fromBase58(owner)): Buffer {
  const data = Buffer.alloc(TOKEN_ACCOUNT_SIZE);
  data.set(bytesOf(mint), 0);
  data.set(ownerBytes, 32);
  data.writeBigUInt64LE(amount, 64);
  data[108] = 1; // initialized
  return data;
}

export interface MintFields {
  mintAuthority?: string;
  supply: bigint;
  decimals: number;
  isInitialized: boolean;
  freezeAuthority?: string;
}

export function decodeMint(data: Buffer): MintFields {
  const option = (at: number) => (data.readUInt32LE(at) === 1 ? toBase58(data.subarray(at + 4, at + 36)) : undefined);
  return { mintAuthority: option(0), supply: data.readBigUInt64LE(36), decimals: data[44]!, isInitialized: data[45] === 1, freezeAuthority: option(46) };
}

/** What a known token's mint has minted on `network` (0 before its first payout). */
export function mintSupplyOf(store: ProjectTx, network: string, mint: string): bigint {
  const state = viewSolanaAccount(store, network, mint);
  return state ? decodeMint(Buffer.from(state.data, "base64")).supply : 0n;
}

function encodeMint(supply: bigint, decimals: number): Buffer {
  const data = Buffer.alloc(MINT_SIZE);
  data.writeUInt32LE(1, 0);
  Buffer.from(fromBase58(SANDBOX_MINT_AUTHORITY)).copy(data, 4);
  data.writeBigUInt64LE(supply, 36);
  data[44] = decimals;
  data[45] = 1;
  return data;
}

/**
 * The mint account of a token the sandbox knows, written on first use with no supply: payouts mint into it and
 * debits burn from it, so its supply is what all accounts hold together.
 */
export function ensureMint(store: ProjectTx, network: string, mint: string): SolanaAccountState {
  const existing = readSolanaAccount(store, network, mint);
  if (existing) return existing;
  const state = unwrittenMint(network, mint);
  writeSolanaAccount(store, state);
  return state;
}

/** A known token's mint as it is before anything is minted (what a read answers before the first payout). */
function unwrittenMint(network: string, mint: string): SolanaAccountState {
  const token = solanaTokenByMint(network, mint);
  return {
    network,
    address: mint,
    lamports: rentExemptMinimum(MINT_SIZE).toString(),
    owner: TOKEN_PROGRAM,
    data: encodeMint(0n, token?.decimals ?? 0).toString("base64"),
  };
}

/** An account as the chain shows it: the project's, or a known token's mint not written yet; undefined: it does not exist. */
export function viewSolanaAccount(store: ProjectTx, network: string, address: string): SolanaAccountState | undefined {
  const held = readSolanaAccount(store, network, address);
  if (held) return held;
  const token = solanaTokenByMint(network, address);
  return token && token.symbol !== "SOL" ? unwrittenMint(network, address) : undefined;
}

/** The lamports `address` holds on `network` (0 when the account does not exist). */
export function lamportsOf(store: ProjectTx, network: string, address: string): bigint {
  return BigInt(readSolanaAccount(store, network, address)?.lamports ?? "0");
}

/** Sets an account's lamports; a wallet with none yet becomes a system account. */
export function setLamports(store: ProjectTx, network: string, address: string, lamports: bigint): void {
  const existing = readSolanaAccount(store, network, address);
  if (lamports < 0n || lamports > U64_MAX) throw new RangeError(`lamports out of range: ${lamports}`);
  const state = existing ?? { network, address, lamports: "0", owner: SYSTEM_PROGRAM, data: "" };
  writeSolanaAccount(store, { ...state, lamports: lamports.toString() });
}

/**
 * Writes the system account of a wallet the caller knows holds no account on `network` yet, with `lamports` (more
 * than none): what setLamports writes then, without reading what is not there (an init file's new wallets).
 */
export function writeNewSystemAccount(store: ProjectTx, network: string, address: string, lamports: bigint): void {
  if (lamports <= 0n || lamports > U64_MAX) throw new RangeError(`lamports out of range: ${lamports}`);
  accounts(store).put(keyOf(network, address), { network, address, lamports: lamports.toString(), owner: SYSTEM_PROGRAM, data: "" });
}

/** Whether the project holds any Solana account, or any entry of the owner index, on any network. */
export function holdsAnySolanaAccount(store: ProjectTx): boolean {
  return accounts(store).find(() => true) !== undefined || ownerIndex(store).find(() => true) !== undefined;
}

/**
 * Opens `owner`'s associated token account for a known `mint` (empty, rent-exempt) when it does not exist yet, as
 * a wallet that receives the token has one; answers its address.
 */
export function openAssociatedTokenAccount(store: ProjectTx, network: string, owner: string, mint: string): string {
  const mintState = ensureMint(store, network, mint);
  const ata = associatedTokenAddress(owner, mint, mintState.owner);
  if (!readSolanaAccount(store, network, ata)) {
    writeSolanaAccount(store, {
      network,
      address: ata,
      lamports: rentExemptMinimum(TOKEN_ACCOUNT_SIZE).toString(),
      owner: mintState.owner,
      data: encodeTokenAccount(mint, owner, 0n).toString("base64"),
    });
  }
  return ata;
}

/** The token accounts `owner` holds of `mint`, decoded. */
function ownerTokenAccounts(store: ProjectTx, network: string, owner: string, mint: string): Array<[SolanaAccountState, TokenAccountFields]> {
  const found: Array<[SolanaAccountState, TokenAccountFields]> = [];
  for (const address of tokenAccountsOf(store, network, owner)) {
    const state = readSolanaAccount(store, network, address);
    if (!state) continue;
    const fields = decodeTokenAccount(Buffer.from(state.data, "base64"));
    if (fields.mint === mint) found.push([state, fields]);
  }
  return found;
}

/** What `owner` holds of `mint` on `network`, over all its token accounts. */
export function tokenBalanceOf(store: ProjectTx, network: string, owner: string, mint: string): bigint {
  return ownerTokenAccounts(store, network, owner, mint).reduce((sum, [, f]) => sum + f.amount, 0n);
}

function withAmount(state: SolanaAccountState, amount: bigint): SolanaAccountState {
  const data = Buffer.from(state.data, "base64");
  data.writeBigUInt64LE(amount, 64);
  return { ...state, data: data.toString("base64") };
}

/** Adds `delta` to a known token's minted supply (clamped to a u64), writing the mint first if it was not yet. */
export function changeSupply(store: ProjectTx, network: string, mint: string, delta: bigint): void {
  const state = ensureMint(store, network, mint);
  const data = Buffer.from(state.data, "base64");
  const supply = data.readBigUInt64LE(36) + delta;
  data.writeBigUInt64LE(supply < 0n ? 0n : supply > U64_MAX ? U64_MAX : supply, 36);
  writeSolanaAccount(store, { ...state, data: data.toString("base64") });
}

const TOKEN_ACCOUNT_RENT = rentExemptMinimum(TOKEN_ACCOUNT_SIZE).toString();

/**
 * Writes a new, initialized token account at `address` (owned by the token `program`) holding `amount` of `mint`
 * for `owner`: what a credit to an owner with no token account of the mint opens. The mint's supply is the
 * caller's to change: setTokenBalance changes it with each credit, an init file once for all its accounts.
 * `ownerBytes`, the owner's 32 bytes when the caller has them, saves decoding the owner (an init file opens
 * 50,000 of these). `heldBefore`, when the caller knows that no account is at `address` and which token accounts
 * the owner holds on the network (an init file's new wallets: none), saves reading both.
 */
export function writeNewTokenAccount(
  store: ProjectTx,
  network: string,
  address: string,
  program: string,
  mint: string,
  owner: string,
  amount: bigint,
  ownerBytes?: Uint8Array,
  heldBefore?: readonly string[],
): void {
  const state = {
    network,
    address,
    lamports: TOKEN_ACCOUNT_RENT,
    owner: program,
    data: encodeTokenAccount(mint, owner, amount, ownerBytes).toString("base64"),
  };
  // The account is a token account of `owner` when `program` is a token program (as tokenAccountOwner would read it).
  const tokenOwner = isTokenProgram(program) ? owner : undefined;
  if (!heldBefore) {
    writeAccount(store, state, tokenOwner);
    return;
  }
  accounts(store).put(keyOf(network, address), state);
  if (tokenOwner) ownerIndex(store).put(keyOf(network, owner), { accounts: [...heldBefore, address] });
}

/**
 * Sets what `owner` holds of `mint` (a payout, a settlement, the admin API): a credit lands in the owner's
 * associated token account (created, rent-exempt, when missing), a debit comes out of that account first, then
 * the owner's others; the mint's supply follows. Wrapped SOL is no token here: use setLamports.
 */
export function setTokenBalance(store: ProjectTx, network: string, owner: string, mint: string, target: bigint): void {
  if (target < 0n || target > U64_MAX) throw new RangeError(`token amount out of range: ${target}`);
  const held = ownerTokenAccounts(store, network, owner, mint);
  const current = held.reduce((sum, [, f]) => sum + f.amount, 0n);
  if (target === current) return;
  const mintState = ensureMint(store, network, mint);
  changeSupply(store, network, mint, target - current);
  const ata = associatedTokenAddress(owner, mint, mintState.owner);
  if (target > current) {
    const existing = held.find(([s]) => s.address === ata) ?? held[0];
    if (existing) {
      writeSolanaAccount(store, withAmount(existing[0], existing[1].amount + target - current));
      return;
    }
    writeNewTokenAccount(store, network, ata, mintState.owner, mint, owner, target - current);
    return;
  }
  let owed = current - target;
  const ordered = [...held.filter(([s]) => s.address === ata), ...held.filter(([s]) => s.address !== ata)];
  for (const [state, fields] of ordered) {
    if (owed === 0n) break;
    const take = fields.amount < owed ? fields.amount : owed;
    writeSolanaAccount(store, withAmount(state, fields.amount - take));
    owed -= take;
  }
}

/** A holder's balance of `asset` ("native": lamports; else a mint, summed over the owner's token accounts). */
export function solanaBalanceOf(store: ProjectTx, network: string, asset: string, holder: string): bigint {
  return asset === "native" ? lamportsOf(store, network, holder) : tokenBalanceOf(store, network, holder, asset);
}

/** Sets a holder's balance of `asset` ("native": lamports; else a mint). */
export function setSolanaBalance(store: ProjectTx, network: string, asset: string, holder: string, amount: bigint): void {
  if (asset === "native") setLamports(store, network, holder, amount);
  else setTokenBalance(store, network, holder, asset, amount);
}

/** Every non-zero balance of `owner` on `network`: ["native", lamports] and [mint, amount] per mint. */
export function solanaHoldings(store: ProjectTx, network: string, owner: string): Array<[string, bigint]> {
  const rows: Array<[string, bigint]> = [];
  const lamports = lamportsOf(store, network, owner);
  if (lamports > 0n) rows.push(["native", lamports]);
  const byMint = new Map<string, bigint>();
  for (const address of tokenAccountsOf(store, network, owner)) {
    const state = readSolanaAccount(store, network, address);
    if (!state) continue;
    const fields = decodeTokenAccount(Buffer.from(state.data, "base64"));
    // Wrapped SOL is SOL held in a token account: the wallet's SOL balance does not include it, the token list does.
    byMint.set(fields.mint, (byMint.get(fields.mint) ?? 0n) + fields.amount);
  }
  for (const [mint, amount] of byMint) if (amount > 0n) rows.push([mint, amount]);
  return rows;
}

/** Every balance of every wallet on the project's Solana networks, as the ledger lists balances (SOL as "native"). */
export function forEachSolanaBalance(store: ProjectTx, visit: (b: { network: string; asset: string; holder: string; amount: string }) => void): void {
  const tokens = new Map<string, { network: string; asset: string; holder: string; amount: bigint }>();
  for (const a of accounts(store).list()) {
    if (a.owner === SYSTEM_PROGRAM && a.data === "") visit({ network: a.network, asset: "native", holder: a.address, amount: a.lamports });
    const holder = tokenAccountOwner(a);
    if (!holder) continue;
    const fields = decodeTokenAccount(Buffer.from(a.data, "base64"));
    const key = `${a.network}|${fields.mint}|${holder}`;
    const row = tokens.get(key) ?? { network: a.network, asset: fields.mint, holder, amount: 0n };
    row.amount += fields.amount;
    tokens.set(key, row);
  }
  for (const row of tokens.values()) visit({ ...row, amount: row.amount.toString() });
}
