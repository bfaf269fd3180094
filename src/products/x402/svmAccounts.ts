/**
 * Solana program ids and associated token accounts for the exact scheme.
 * The ATA is the program-derived address of [owner, token program, mint]
 * under the Associated Token Account program, derived with @solana/kit.
 */
import { address, getAddressEncoder, getProgramDerivedAddress } from "@solana/kit";
import { lamportsOf, setLamports } from "../../chain/solana/index.js";
import { ASSOCIATED_TOKEN_PROGRAM } from "../../crypto/solanaInstructions.js";
import type { ProjectTx } from "../../store/store.js";
import { FACILITATOR_FEE_PAYER } from "./networks.js";

export const COMPUTE_BUDGET_PROGRAM = "ComputeBudget111111111111111111111111111111";
export const MEMO_PROGRAM = "MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr";
export const LIGHTHOUSE_PROGRAM = "L2TExMFKdjpN9kozasaurPirfHy9P8sbXoAN1qA3S95";

/** The associated token account of `owner` for `mint` under `tokenProgram`. */
export async function associatedTokenAddress(owner: string, mint: string, tokenProgram: string): Promise<string> {
  const encoder = getAddressEncoder();
  try {
    const [ata] = await getProgramDerivedAddress({
      programAddress: address(ASSOCIATED_TOKEN_PROGRAM),
      seeds: [encoder.encode(address(owner)), encoder.encode(address(tokenProgram)), encoder.encode(address(mint))],
    });
    return String(ata);
  } catch {
    return ""; // not base-58 addresses: no account can match
  }
}

const FEE_PAYER_FLOAT = 1_000_000_000_000n; // 1,000 SOL

/** The facilitator's fee payer pays settlement fees from its own SOL: topped up whenever it runs low, as the platform keeps it funded. */
export function fundFacilitatorFeePayer(store: ProjectTx, network: string): void {
  if (lamportsOf(store, network, FACILITATOR_FEE_PAYER.address) < FEE_PAYER_FLOAT / 2n)
    setLamports(store, network, FACILITATOR_FEE_PAYER.address, FEE_PAYER_FLOAT);
}
