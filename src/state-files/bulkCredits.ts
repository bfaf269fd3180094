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
 */
import { ledgerToken, type SupplyTally } from "../chain/credit.js";
import { evmBalanceOf, evmTotalHeld, setEvmBalance } from "../chain/evm/balances.js";
import { changeSupply, ensureMint, lamportsOf, mintSupplyOf, setLamports, tokenBalanceOf, writeNewTokenAccount } from "../chain/solana/accounts.js";
import { associatedTokenAddress } from "../chain/solana/addresses.js";
import { EVM_NETWORKS } from "../chain/networks.js";
import { isSolanaNetwork, SOL, type SolanaToken, solanaTokenByMint, solanaTokenBySymbol } from "../chain/solana/tokens.js";
import { evmTokenByAddress, evmTokenBySymbol, NATIVE_TOKEN_ADDRESS } from "../chain/tokens.js";
import { toUnits } from "../products/shared/decimal.js";
import type { ProjectTx } from "../store/store.js";
import type { SolanaDerived, TokenAccountKey } from "./deriveThreads.js";

const MAX_UINT256 = 2n ** 256n - 1n;
const MAX_U64 = 2n ** 64n - 1n;

/** A token as a credit names it on a network: an EVM asset (its contract, or the native address), SOL, or an SPL mint. */
type Asset = { kind: "evm"; address: string; decimals: number } | { kind: "sol"; decimals: number } | { kind: "spl"; token: SolanaToken };

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
    return asset === SOL ? { kind: "sol", decimals: SOL.decimals } : { kind: "spl", token: asset };
  }
  if (!(network in EVM_NETWORKS)) return undefined;
  const asset = evmTokenBySymbol(network, token) ?? evmTokenByAddress(network, token);
  return asset && { kind: "evm", address: asset.address, decimals: asset.decimals };
}

/** The Solana account a credit goes to, with what the threads derived for it. */
export interface SolanaHolder {
  derived: SolanaDerived;
  /** The token accounts the threads were asked for, in the order of `derived.tokenAccounts`. */
  asked: readonly TokenAccountKey[];
}

export class BulkCredits {
  private readonly assets = new Map<string, Asset | undefined>();
  private readonly units = new Map<string, bigint | undefined>();
  /** Mints credited since the last flush, with the units they gained. */
  private readonly minted = new Map<string, { network: string; mint: string; program: string; units: bigint }>();

  constructor(
    private readonly store: ProjectTx,
    private readonly supplies: SupplyTally,
  ) {}

  /**
   * Credits `amount` (decimal token units) of `token` on `network` to an EVM account (`solana` undefined) or a
   * Solana account; false when it is not the plain case, with nothing changed.
   */
  tryCredit(network: string, address: string, token: string, amount: string, solana?: SolanaHolder): boolean {
    const assetId = `${network}|${token}`;
    if (!this.assets.has(assetId)) this.assets.set(assetId, assetOf(network, token));
    const asset = this.assets.get(assetId);
    if (!asset || (asset.kind === "evm") !== (solana === undefined)) return false;
    const decimals = asset.kind === "spl" ? asset.token.decimals : asset.decimals;
    const unitsId = `${amount}|${decimals}`;
    if (!this.units.has(unitsId)) this.units.set(unitsId, toUnits(amount, decimals));
    const units = this.units.get(unitsId);
    if (units === undefined) return false;
    if (asset.kind === "evm") return this.creditEvm(network, address, asset.address, units);
    if (asset.kind === "sol") {
      const lamports = lamportsOf(this.store, network, address) + units;
      if (lamports > MAX_U64) return false;
      setLamports(this.store, network, address, lamports);
      return true;
    }
    return this.creditSpl(network, address, asset.token, units, solana!);
  }

  private creditEvm(network: string, holder: string, asset: string, units: bigint): boolean {
    const balance = evmBalanceOf(this.store, network, asset, holder) + units;
    if (balance > MAX_UINT256) return false;
    if (asset !== NATIVE_TOKEN_ADDRESS) {
      // An ERC-20 token's supply is what its holders hold together: read once, then counted credit by credit.
      const id = `${network}|${asset}`;
      const supply = (this.supplies.get(id) ?? evmTotalHeld(this.store, network, asset)) + units;
      if (supply > MAX_UINT256) return false;
      this.supplies.set(id, supply);
    }
    setEvmBalance(this.store, network, asset, holder, balance);
    return true;
  }

  private creditSpl(network: string, owner: string, token: SolanaToken, units: bigint, holder: SolanaHolder): boolean {
    const id = `${network}|${token.mint}`;
    const supply = (this.supplies.get(id) ?? mintSupplyOf(this.store, network, token.mint)) + units;
    if (units > MAX_U64 || supply > MAX_U64 || tokenBalanceOf(this.store, network, owner, token.mint) !== 0n) return false;
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
    writeNewTokenAccount(this.store, network, address, mint.program, token.mint, owner, units, holder.derived.publicKey);
    mint.units += units;
    return true;
  }

  /** Writes the supply credited since the last flush into each mint. */
  flush(): void {
    for (const m of this.minted.values()) if (m.units > 0n) changeSupply(this.store, m.network, m.mint, m.units);
    this.minted.clear();
  }
}
