/**
 * The balances of an init file's new server accounts, credited many at once. A credit here changes the ledger
 * exactly as the admin API's credit (chain/credit.ts) does, without what that costs per call and what is the same
 * for every account: the network and token are looked up once per name, the amount parsed once per text, the
 * balance read once, and a Solana account's first credit of a token opens its associated token account (derived
 * on a helper thread) with the mint's supply written once for all of them, at `flush`.
 *
 * `tryCredit` answers false, having changed nothing, for anything but the plain case: a token the table lacks, an
 * amount with too many decimals, a balance or supply past its bound, a holder that has some of the token already,
 * a credit on the other chain's network. The caller then credits through chain/credit.ts, which refuses it or
 * credits it as it always did; `flush` first, so it reads the mints as they are.
 *
 * A credit to an account made in this bulk (`isNew`) reads nothing of its holder when the ledger held nothing
 * before the bulk: its balances, system account and token accounts can then only be those its own earlier credits
 * wrote, which are counted here as they are made (~5 µs a read that finds nothing, three or four an account).
 * The same credit to an account whose earlier credit went through chain/credit.ts reads as before.
 */
import { ledgerToken, type SupplyTally } from "../chain/credit.js";
import { evmBalanceOf, evmTotalHeld, holdsAnyEvmBalance, setEvmBalance } from "../chain/evm/balances.js";
import {
  changeSupply,
  ensureMint,
  holdsAnySolanaAccount,
  lamportsOf,
  mintSupplyOf,
  setLamports,
  tokenBalanceOf,
  writeNewSystemAccount,
  writeNewTokenAccount,
} from "../chain/solana/accounts.js";
import { associatedTokenAddress } from "../chain/solana/addresses.js";
import { EVM_NETWORKS } from "../chain/networks.js";
import { isSolanaNetwork, SOL, type SolanaToken, solanaTokenByMint, solanaTokenBySymbol } from "../chain/solana/tokens.js";
import { evmTokenByAddress, evmTokenBySymbol, NATIVE_TOKEN_ADDRESS } from "../chain/tokens.js";
import { toUnits } from "../products/shared/decimal.js";
import type { ProjectTx } from "../store/store.js";
import type { SolanaDerived, TokenAccountKey } from "./deriveThreads.js";

const MAX_UINT256 = 2n ** 256n - 1n;
const MAX_U64 = 2n ** 64n - 1n;

/**
 * A token as a credit names it on a network: an EVM asset (its contract, or the native address), SOL, or an SPL
 * mint; `id`, the network and the asset's address (its supply's key in the tally; none for SOL), the same whichever
 * name the credit gives it.
 */
type Asset = { id: string } & ({ kind: "evm"; address: string; decimals: number } | { kind: "sol"; decimals: number } | { kind: "spl"; token: SolanaToken });

/** The SPL token a credit names on a Solana network, or undefined (SOL, another chain, a token the table lacks). */
export function splToken(network: string, token: string): SolanaToken | undefined {
  if (!isSolanaNetwork(network)) return undefined;
  const asset = ledgerToken(network, token) as SolanaToken | undefined;
  return asset && asset !== SOL ? asset : undefined;
}

/** The asset as chain/credit.ts resolves it: a symbol or an address (mint) of the network's token table. */
function assetOf(network: string, token: string): Asset | undefined {
  if (isSolanaNetwork(network)) {
    const asset = solanaTokenBySymbol(network, token) ?? solanaTokenByMint(network, token);
    if (!asset) return undefined;
    return asset === SOL ? { id: `${network}|`, kind: "sol", decimals: SOL.decimals } : { id: `${network}|${asset.mint}`, kind: "spl", token: asset };
  }
  if (!(network in EVM_NETWORKS)) return undefined;
  const asset = evmTokenBySymbol(network, token) ?? evmTokenByAddress(network, token);
  return asset && { id: `${network}|${asset.address}`, kind: "evm", address: asset.address, decimals: asset.decimals };
}

/** The holder of the credits coming in (an account's credits come one after the other), and what it was credited. */
interface Holder {
  address: string;
  /** Network and asset of each plain credit so far. */
  credited: string[];
  /** Its token accounts per network, once a fresh holder has one. */
  tokenAccounts?: Map<string, string[]>;
  /** Whether a credit went through the operations, which may have written anything of it. */
  throughOperations: boolean;
}

/** The Solana account a credit goes to, with what the threads derived for it. */
export interface SolanaHolder {
  derived: SolanaDerived;
  /** The token accounts the threads were asked for, in the order of `derived.tokenAccounts`. */
  asked: readonly TokenAccountKey[];
}

export class BulkCredits {
  /** Network → name → asset. */
  private readonly assets = new Map<string, Map<string, Asset | undefined>>();
  /** Amount text → decimals → units. */
  private readonly units = new Map<string, Map<number, bigint | undefined>>();
  /** Mints credited since the last flush, with the units they gained. */
  private readonly minted = new Map<string, { network: string; mint: string; program: string; units: bigint }>();

  /** Whether the ledger held no balance and no Solana account when the bulk began. */
  private readonly emptyLedger: boolean;
  /** The holder of the last credit, what it was credited in this bulk (network and asset), and its token accounts. */
  private holder: Holder | undefined;

  constructor(
    private readonly store: ProjectTx,
    private readonly supplies: SupplyTally,
  ) {
    this.emptyLedger = !holdsAnyEvmBalance(store) && !holdsAnySolanaAccount(store);
  }

  /**
   * Credits `amount` (decimal token units) of `token` on `network` to an EVM account (`solana` undefined) or a
   * Solana account; false when it is not the plain case, with nothing changed (the caller credits it through the
   * operations). `isNew`: the account was made by this bulk, and this and its other credits come one after the other.
   */
  tryCredit(network: string, address: string, token: string, amount: string, solana?: SolanaHolder, isNew = false): boolean {
    // Looked up by network, then name (and amount, then decimals): no key made per credit.
    const asset = memoized(this.assets, network, token, () => assetOf(network, token));
    if (this.holder?.address !== address) this.holder = { address, credited: [], throughOperations: false };
    const holder = this.holder;
    if (!asset || (asset.kind === "evm") !== (solana === undefined)) return this.notPlain(holder);
    const decimals = asset.kind === "spl" ? asset.token.decimals : asset.decimals;
    const units = memoized(this.units, amount, decimals, () => toUnits(amount, decimals));
    if (units === undefined) return this.notPlain(holder);
    // Nothing of the holder to read: a new account, a ledger empty before, and no credit of this asset yet (a
    // token named twice, by symbol and by address, is credited twice), none through the operations.
    const fresh = isNew && this.emptyLedger && !holder.throughOperations && !holder.credited.includes(asset.id);
    if (fresh && asset.kind === "spl") holder.tokenAccounts ??= new Map();
    const done =
      asset.kind === "evm"
        ? this.creditEvm(network, address, asset.address, asset.id, units, fresh)
        : asset.kind === "sol"
          ? this.creditSol(network, address, units, fresh)
          : this.creditSpl(network, address, asset.token, asset.id, units, solana!, fresh ? holder.tokenAccounts : undefined);
    if (!done) return this.notPlain(holder);
    holder.credited.push(asset.id);
    return true;
  }

  /** A credit the caller makes through the operations: they may write anything of the holder, so it is read from now on. */
  private notPlain(holder: Holder): false {
    holder.throughOperations = true;
    return false;
  }

  private creditSol(network: string, address: string, units: bigint, fresh: boolean): boolean {
    // (A wallet at a known mint's address would share its account with the mint: read as it is.)
    if (fresh && units > 0n && !solanaTokenByMint(network, address)) {
      writeNewSystemAccount(this.store, network, address, units);
      return true;
    }
    const lamports = lamportsOf(this.store, network, address) + units;
    if (lamports > MAX_U64) return false;
    setLamports(this.store, network, address, lamports);
    return true;
  }

  private creditEvm(network: string, holder: string, asset: string, id: string, units: bigint, fresh: boolean): boolean {
    const balance = (fresh ? 0n : evmBalanceOf(this.store, network, asset, holder)) + units;
    if (balance > MAX_UINT256) return false;
    if (asset !== NATIVE_TOKEN_ADDRESS) {
      // An ERC-20 token's supply is what its holders hold together: read once, then counted credit by credit.
      const supply = (this.supplies.get(id) ?? evmTotalHeld(this.store, network, asset)) + units;
      if (supply > MAX_UINT256) return false;
      this.supplies.set(id, supply);
    }
    setEvmBalance(this.store, network, asset, holder, balance);
    return true;
  }

  /** `ownerAccounts`: the token accounts of a fresh owner made in this bulk, per network (else undefined: read them). */
  private creditSpl(
    network: string,
    owner: string,
    token: SolanaToken,
    id: string,
    units: bigint,
    holder: SolanaHolder,
    ownerAccounts?: Map<string, string[]>,
  ): boolean {
    const supply = (this.supplies.get(id) ?? mintSupplyOf(this.store, network, token.mint)) + units;
    if (units > MAX_U64 || supply > MAX_U64 || (!ownerAccounts && tokenBalanceOf(this.store, network, owner, token.mint) !== 0n)) return false;
    this.supplies.set(id, supply);
    if (units === 0n) return true; // a credit of nothing: counted, and nothing written
    let mint = this.minted.get(id);
    if (!mint) {
      // The mint is written (if it was not yet) before the first token account, as a single credit writes it.
      mint = { network, mint: token.mint, program: ensureMint(this.store, network, token.mint).owner, units: 0n };
      this.minted.set(id, mint);
    }
    const i = holder.asked.findIndex((t) => t.mint === token.mint && t.program === mint.program);
    const address = i >= 0 ? holder.derived.tokenAccounts[i]! : associatedTokenAddress(owner, token.mint, mint.program);
    const heldBefore = ownerAccounts?.get(network) ?? [];
    writeNewTokenAccount(this.store, network, address, mint.program, token.mint, owner, units, holder.derived.publicKey, ownerAccounts && heldBefore);
    ownerAccounts?.set(network, [...heldBefore, address]);
    mint.units += units;
    return true;
  }

  /** Writes the supply credited since the last flush into each mint. */
  flush(): void {
    for (const m of this.minted.values()) if (m.units > 0n) changeSupply(this.store, m.network, m.mint, m.units);
    this.minted.clear();
  }
}

/** What `make` gives for `inner` under `outer`, made the first time it is asked for and kept in `maps`. */
function memoized<A, B, V>(maps: Map<A, Map<B, V>>, outer: A, inner: B, make: () => V): V {
  let byInner = maps.get(outer);
  if (!byInner) {
    byInner = new Map();
    maps.set(outer, byInner);
  }
  if (!byInner.has(inner)) byInner.set(inner, make());
  return byInner.get(inner) as V;
}
