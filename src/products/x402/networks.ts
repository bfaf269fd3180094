/**
 * The payment kinds the sandbox's facilitator really verifies and settles:
 * the `exact` scheme, x402 versions 1 (network names) and 2 (CAIP-2 ids), on
 * Base and Base Sepolia (EIP-3009 tokens) and Solana mainnet and devnet (SPL
 * USDC), each mapped to the project's ledger network. The facilitator's own
 * signers are fixed keys: they pay for gas and fees, like the platform's.
 */
import { createHash } from "node:crypto";
import { keccak256, toHex } from "viem";
import type { Schema } from "../../contract/types.js";
import { evmAccountOf } from "../../crypto/evm.js";
import { solanaKeyFromSeed, type SolanaKey } from "../../crypto/solana.js";

export interface X402Network {
  /** Version 1 name, e.g. "base-sepolia". */
  v1: Schema<"X402V1Network">;
  /** Version 2 CAIP-2 id, e.g. "eip155:84532". */
  caip2: Schema<"X402V2Network">;
  /** The ledger network the payment moves on. */
  ledger: string;
  family: "evm" | "svm";
}

export const X402_NETWORKS: readonly X402Network[] = [
  { v1: "base", caip2: "eip155:8453", ledger: "base", family: "evm" },
  { v1: "base-sepolia", caip2: "eip155:84532", ledger: "base-sepolia", family: "evm" },
  { v1: "solana", caip2: "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp", ledger: "solana", family: "svm" },
  { v1: "solana-devnet", caip2: "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1", ledger: "solana-devnet", family: "svm" },
];

/** The network a version-1 name or a version-2 CAIP-2 id names, if the facilitator settles on it. */
export function x402Network(name: string): X402Network | undefined {
  return X402_NETWORKS.find((n) => n.v1 === name || n.caip2 === name);
}

// Fixed, public keys: the sandbox's facilitator holds no user funds, so nothing secret hangs on them.
const EVM_FACILITATOR = evmAccountOf(keccak256(toHex("cdp-sandbox:x402-facilitator:evm")));
// Derived on first use: an ed25519 derivation at module load would cost every start of the sandbox.
let solanaFeePayer: SolanaKey | undefined;
const feePayer = () => (solanaFeePayer ??= solanaKeyFromSeed(createHash("sha256").update("cdp-sandbox:x402-facilitator:solana-fee-payer").digest()));
const SOLANA_FEE_PAYER: SolanaKey = {
  get address() {
    return feePayer().address;
  },
  get seedHex() {
    return feePayer().seedHex;
  },
};

/** The EVM address that submits settlement transactions (and pays their gas). */
export const FACILITATOR_EVM_ADDRESS = EVM_FACILITATOR.address;

/** The Solana account that pays the fees of settled transactions (`extra.feePayer`). */
export const FACILITATOR_FEE_PAYER = SOLANA_FEE_PAYER;
