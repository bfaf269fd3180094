/**
 * A Solana JSON-RPC subset on the project's ledger, at /rpc/v1/{solana|solana-devnet}/{token}:
 * getAccountInfo, getBalance, getLatestBlockhash, getSignatureStatuses,
 * getTokenAccountBalance, sendTransaction (fully signed; signatures are
 * checked), getGenesisHash, getSlot, getBlockHeight, getHealth.
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
import { balanceOf, holdings, totalHeld } from "./ledger.js";
import { applySolanaTransaction, SOL, SOLANA_TOKENS, solanaTokenByMint, solanaTxs } from "./solanaLedger.js";

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

const SYSTEM_PROGRAM = "11111111111111111111111111111111";
const TOKEN_PROGRAM = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA";
const U64_MAX = 2n ** 64n - 1n;
/** A rent-exempt account's rentEpoch, u64::MAX, written as the JSON integer the real RPC writes. */
const RENT_EXEMPT_EPOCH = U64_MAX;
/** Rent-exempt minimum of an 82-byte mint account. */
const MINT_ACCOUNT_LAMPORTS = 1_461_600n;
/** The sandbox's stand-in mint authority: any fixed key (the real ones belong to the issuers). */
const SANDBOX_MINT_AUTHORITY = createHash("sha256").update("cdp-sandbox:mint-authority").digest();

/** An SPL Token mint account's 82 bytes: authority option and key, supply, decimals, initialized, no freeze authority. */
function mintAccountData(supply: bigint, decimals: number): Buffer {
  const data = Buffer.alloc(82);
  data.writeUInt32LE(1, 0);
  SANDBOX_MINT_AUTHORITY.copy(data, 4);
  data.writeBigUInt64LE(supply < U64_MAX ? supply : U64_MAX, 36); // a mint's supply is a u64; the ledger's sums are not bounded
  data.writeUInt8(decimals, 44);
  data.writeUInt8(1, 45);
  return data; // freeze authority option (46..49) and key (50..81) stay zero: none
}

/**
 * The accounts the ledger can describe: the token mints of the network
 * (owned by the SPL Token program, supply = what the ledger holds) and
 * wallets holding SOL (owned by the System program, no data). Anything else
 * does not exist here, as an unfunded address does not on chain.
 */
function accountInfo(store: ProjectTx, network: string, address: string, encoding = "base64") {
  if (encoding !== "base64" && encoding !== "base58") {
    throw new SolanaRpcError(-32602, `Invalid params: the sandbox answers getAccountInfo with encoding base64 or base58, not ${encoding}.`);
  }
  if (!/^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(address))
    throw new SolanaRpcError(-32602, `Invalid param: ${JSON.stringify(address)} is not a base-58 account address.`);
  const token = solanaTokenByMint(network, address);
  let owner: string;
  let data: Buffer;
  let lamports: bigint;
  if (token && token.mint !== SOL.mint) {
    const supply = totalHeld(store, network, token.mint);
    [owner, data, lamports] = [TOKEN_PROGRAM, mintAccountData(supply, token.decimals), MINT_ACCOUNT_LAMPORTS];
  } else {
    const balance = balanceOf(store, network, "native", address);
    if (balance === 0n) return null;
    [owner, data, lamports] = [SYSTEM_PROGRAM, Buffer.alloc(0), balance];
  }
  return {
    data: [encoding === "base58" ? toBase58(new Uint8Array(data)) : data.toString("base64"), encoding],
    executable: false,
    lamports,
    owner,
    rentEpoch: RENT_EXEMPT_EPOCH,
    space: data.length,
  };
}

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
      return { context, value: balanceOf(store, network, "native", String(params[0])) };
    case "getAccountInfo":
      return { context, value: accountInfo(store, network, String(params[0]), (params[1] as { encoding?: string } | undefined)?.encoding) };
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
      let tx: ReturnType<typeof decodeSolanaTransaction>;
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
