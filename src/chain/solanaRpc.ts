/**
 * A Solana JSON-RPC subset on the project's ledger, at /rpc/v1/{solana|solana-devnet}/{token}:
 * getBalance, getLatestBlockhash, getSignatureStatuses, getTokenAccountBalance,
 * sendTransaction (fully signed; signatures are checked), getGenesisHash,
 * getSlot, getBlockHeight, getHealth.
 */
import { createHash } from "node:crypto";
import { ed25519 } from "@noble/curves/ed25519.js";
import { getBase58Encoder } from "@solana/kit";
import type { Clock } from "../clock.js";
import { decodeSolanaTransaction, toBase58 } from "../crypto/solana.js";
import { readSolanaTransaction } from "../crypto/solanaInstructions.js";
import { ApiError } from "../errors/catalogue.js";
import type { ProjectTx } from "../store/store.js";
import { blockNumberAt } from "./blocks.js";
import { balanceOf, holdings } from "./ledger.js";
import { applySolanaTransaction, SOLANA_TOKENS, solanaTokenByMint, solanaTxs } from "./solanaLedger.js";

export class SolanaRpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

const GENESIS: Record<string, string> = { solana: "5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp", "solana-devnet": "EtWTRABZaYq6iMfeYKouRu166VU2xqa1" };

export const isSolanaNetwork = (network: string) => network in SOLANA_TOKENS;

export function solanaCall(method: string, params: unknown[], ctx: { network: string; store: ProjectTx; clock: Clock }): unknown {
  const { network, store, clock } = ctx;
  const slot = blockNumberAt(network, clock.now());
  const context = { slot };
  switch (method) {
    case "getHealth":
      return "ok";
    case "getGenesisHash":
      return GENESIS[network];
    case "getSlot":
    case "getBlockHeight":
      return slot;
    case "getBalance":
      return { context, value: Number(balanceOf(store, network, "native", String(params[0]))) };
    case "getLatestBlockhash":
      return {
        context,
        value: { blockhash: toBase58(createHash("sha256").update(`cdp-sandbox:${network}:${slot}`).digest()), lastValidBlockHeight: slot + 150 },
      };
    case "getSignatureStatuses": {
      const signatures = (params[0] ?? []) as string[];
      return {
        context,
        value: signatures.map((sig) => {
          const tx = solanaTxs(store).get(sig);
          if (!tx || tx.network !== network) return null;
          const done = tx.slot <= slot;
          return { slot: tx.slot, confirmations: done ? null : 0, err: null, confirmationStatus: done ? "finalized" : "processed", status: { Ok: null } };
        }),
      };
    }
    case "getTokenAccountBalance": {
      // Token balances are kept per owning wallet; the wallet's first token holding answers here.
      const held = holdings(store, network, String(params[0])).find(([asset]) => asset !== "native");
      if (!held) throw new SolanaRpcError(-32602, "Invalid param: could not find account");
      const token = solanaTokenByMint(network, held[0]);
      const decimals = token?.decimals ?? 0;
      const amount = held[1];
      const ui = Number(amount) / 10 ** decimals;
      return { context, value: { amount: amount.toString(), decimals, uiAmount: ui, uiAmountString: String(ui) } };
    }
    case "sendTransaction": {
      const [wire, options] = params as [string, { encoding?: string } | undefined];
      const base64 = options?.encoding === "base58" ? Buffer.from(getBase58Encoder().encode(wire)).toString("base64") : String(wire);
      let tx;
      try {
        tx = decodeSolanaTransaction(base64);
      } catch (error) {
        throw new SolanaRpcError(-32602, `failed to deserialize transaction: ${(error as Error).message}`);
      }
      for (const [signer, signature] of Object.entries(tx.signatures)) {
        const ok = signature && ed25519.verify(new Uint8Array(signature), new Uint8Array(tx.messageBytes), new Uint8Array(getBase58Encoder().encode(signer)));
        if (!ok) throw new SolanaRpcError(-32003, `Transaction signature verification failure: ${signer}`);
      }
      const payer = Object.keys(tx.signatures)[0]!;
      const signature = toBase58(new Uint8Array(tx.signatures[payer as keyof typeof tx.signatures]!));
      try {
        applySolanaTransaction(store, clock, network, signature, payer, Object.keys(tx.signatures).length, readSolanaTransaction(tx));
      } catch (error) {
        if (error instanceof ApiError) throw new SolanaRpcError(-32002, `Transaction simulation failed: ${error.message}`);
        throw error;
      }
      return signature;
    }
  }
  throw new SolanaRpcError(-32601, "Method not found");
}
