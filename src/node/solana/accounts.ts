/**
 * Solana accounts as the RPC describes them, from the project's accounts (chain/solana/accounts.ts): `base64`,
 * `base58` and `jsonParsed` (mints and token accounts parsed as the real node parses them; other accounts fall
 * back to base64, as there). An address the project holds nothing at does not exist, as an unfunded one does not.
 */
import { decodeMint, decodeTokenAccount, type SolanaAccountState, tokenAccountOwner, viewSolanaAccount } from "../../chain/solana/accounts.js";
import { TOKEN_2022_PROGRAM } from "../../chain/solana/tokens.js";
import { toBase58 } from "../../crypto/solana.js";
import type { ProjectTx } from "../../store/store.js";
import { RpcError } from "../jsonRpc.js";

/** A rent-exempt account's rentEpoch, u64::MAX, written as the JSON integer the real RPC writes. */
const RENT_EXEMPT_EPOCH = 2n ** 64n - 1n;
const ENCODINGS = ["base64", "base58", "jsonParsed", "base64+zstd"];

export function checkAddress(address: unknown): string {
  if (typeof address !== "string" || !/^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(address)) {
    throw new RpcError(-32602, `Invalid param: ${JSON.stringify(address)} is not a base-58 account address.`);
  }
  return address;
}

export function checkEncoding(encoding: unknown): string {
  const chosen = encoding ?? "base64";
  if (typeof chosen !== "string" || !ENCODINGS.includes(chosen) || chosen === "base64+zstd") {
    throw new RpcError(-32602, `Invalid params: the sandbox answers with encoding base64, base58 or jsonParsed, not ${String(chosen)}.`);
  }
  return chosen;
}

/** A token amount as the RPC writes it. */
export function uiTokenAmount(amount: bigint, decimals: number) {
  const text = decimals === 0 ? amount.toString() : formatUnits(amount, decimals);
  return { amount: amount.toString(), decimals, uiAmount: Number(text), uiAmountString: text };
}

function formatUnits(amount: bigint, decimals: number): string {
  const whole = amount / 10n ** BigInt(decimals);
  const fraction = (amount % 10n ** BigInt(decimals)).toString().padStart(decimals, "0").replace(/0+$/, "");
  return fraction ? `${whole}.${fraction}` : whole.toString();
}

/** A mint or token account parsed as the node's jsonParsed encoding writes it; undefined for anything else. */
function parsed(store: ProjectTx, state: SolanaAccountState) {
  const program = state.owner === TOKEN_2022_PROGRAM ? "spl-token-2022" : "spl-token";
  const data = Buffer.from(state.data, "base64");
  if (tokenAccountOwner(state)) {
    const f = decodeTokenAccount(data);
    const mint = viewSolanaAccount(store, state.network, f.mint);
    const decimals = mint ? decodeMint(Buffer.from(mint.data, "base64")).decimals : 0;
    const info: Record<string, unknown> = {
      isNative: f.isNative !== undefined,
      mint: f.mint,
      owner: f.owner,
      state: f.state === 2 ? "frozen" : f.state === 1 ? "initialized" : "uninitialized",
      tokenAmount: uiTokenAmount(f.amount, decimals),
    };
    if (f.delegate) Object.assign(info, { delegate: f.delegate, delegatedAmount: uiTokenAmount(f.delegatedAmount, decimals) });
    if (f.isNative !== undefined) info.rentExemptReserve = uiTokenAmount(f.isNative, 9);
    if (f.closeAuthority) info.closeAuthority = f.closeAuthority;
    return { program, parsed: { info, type: "account" }, space: data.length };
  }
  if ((state.owner === TOKEN_2022_PROGRAM || state.owner === "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA") && data.length === 82) {
    const m = decodeMint(data);
    return {
      program,
      parsed: {
        info: {
          decimals: m.decimals,
          freezeAuthority: m.freezeAuthority ?? null,
          isInitialized: m.isInitialized,
          mintAuthority: m.mintAuthority ?? null,
          supply: m.supply.toString(),
        },
        type: "mint",
      },
      space: data.length,
    };
  }
  return undefined;
}

/** An account in the RPC's shape, encoded as asked. */
export function accountJson(store: ProjectTx, state: SolanaAccountState, encoding: string) {
  const data = Buffer.from(state.data, "base64");
  const body =
    (encoding === "jsonParsed" ? parsed(store, state) : undefined) ??
    (encoding === "base58" ? [toBase58(new Uint8Array(data)), "base58"] : [data.toString("base64"), "base64"]);
  return {
    data: body,
    executable: state.executable === true,
    lamports: BigInt(state.lamports),
    owner: state.owner,
    rentEpoch: RENT_EXEMPT_EPOCH,
    space: data.length,
  };
}

/** getAccountInfo's value: the account, or null when it does not exist. */
export function accountInfo(store: ProjectTx, network: string, address: unknown, encoding?: unknown) {
  const chosen = checkEncoding(encoding);
  const state = viewSolanaAccount(store, network, checkAddress(address));
  return state ? accountJson(store, state, chosen) : null;
}
