/** What the ledger holds for an address: balances, nonces, code, ERC-20 reads, and the platform's balance listing. */
import type { Hex } from "viem";
import { nextNonce } from "../../chain/evm/nonces.js";
import { balanceOf, holdings } from "../../chain/balances.js";
import { erc20ByAddress, evmTokenByAddress, NATIVE_TOKEN_ADDRESS } from "../../chain/tokens.js";
import { hasSandboxCode } from "../../products/sandboxContracts.js";
import { canonicalCodeAt } from "../../chain/evm/canonical.js";
import { runsBytecode } from "../../chain/evm/executeTransaction.js";
import { codeAt } from "../../chain/evm/ledgerState.js";
import { decodeTokenCall, readToken } from "../../chain/evm/tokenModel.js";
import { RpcError } from "../jsonRpc.js";
import { callBytecode, callRequest } from "./bytecode.js";
import { accountAbstractionCode, accountAbstractionRead } from "./bundler.js";
import { type EvmNodeContext, hex } from "./context.js";
import { universalSignatureValidation } from "./signatureValidator.js";

export const eth_getBalance = (params: unknown[], ctx: EvmNodeContext) => hex(balanceOf(ctx.store, ctx.network, NATIVE_TOKEN_ADDRESS, String(params[0])));

export function eth_getTransactionCount(params: unknown[], ctx: EvmNodeContext) {
  return hex(nextNonce(ctx.store, ctx.network, String(params[0])));
}

export function eth_getCode(params: unknown[], ctx: EvmNodeContext) {
  const address = String(params[0]);
  // Deployed and canonical code first; then the modelled contracts, whose stub code is a single byte.
  const code = codeAt(ctx.store, ctx.network, address, (_network, at) => canonicalCodeAt(at));
  if (code !== "0x") return code;
  return erc20ByAddress(ctx.network, address) || hasSandboxCode(address) ? "0x00" : (accountAbstractionCode(ctx, address) ?? "0x");
}

/**
 * ERC-20 reads of the table's tokens, as their contracts answer them. As on a node, a call to an address
 * without code succeeds with no data, and a token reverts a call to a function it does not have.
 */
export function eth_call(params: unknown[], ctx: EvmNodeContext) {
  if (params[0] !== undefined && (typeof params[0] !== "object" || params[0] === null || Array.isArray(params[0])))
    throw new RpcError(-32602, "invalid argument 0: a call object ({ to, data, … })");
  const [req] = params as [{ to?: string; data?: Hex; input?: Hex } | undefined];
  if (req) callRequest(req); // the call object's fields checked (-32602 for a bad one), whichever path answers it
  // A deployless call (no `to`) runs its creation code; the ERC-6492 validator is answered as the sandbox's wallets would.
  if (req && !req.to) return universalSignatureValidation(ctx, (req.data ?? req.input ?? "0x") as Hex) ?? callBytecode(ctx, callRequest(req));
  if (req && typeof req.to === "string" && runsBytecode(ctx.store, ctx.network, req.to)) return callBytecode(ctx, callRequest(req));
  // The wallet factories and EntryPoints answer their own reads (bundler.ts).
  const walletRead = req?.to ? accountAbstractionRead(ctx, req.to, (req.data ?? req.input ?? "0x") as Hex) : undefined;
  if (walletRead !== undefined) return walletRead;
  const token = req?.to ? erc20ByAddress(ctx.network, req.to) : undefined;
  if (!token) return "0x";
  const call = decodeTokenCall((req!.data ?? req!.input ?? "0x") as Hex);
  // No such function (or calldata too short for its arguments): the token has no fallback, so it reverts without data.
  const read = call && readToken(ctx.store, ctx.network, ctx.chainId, token, call);
  if (read === undefined) throw new RpcError(-32000, "execution reverted");
  return read;
}

/** The platform's balance listing on its node: params [{ address, pageToken?, pageSize? }], native first. */
export function cdp_listBalances(params: unknown[], ctx: EvmNodeContext) {
  const [query] = params as [{ address?: unknown; pageToken?: unknown; pageSize?: unknown } | undefined];
  if (!query || typeof query.address !== "string" || !/^0x[0-9a-fA-F]{40}$/.test(query.address))
    throw new RpcError(-32602, "params[0].address must be a 0x address");
  const rows = holdings(ctx.store, ctx.network, query.address)
    .map(([asset, amount]) => {
      const token = asset === "native" ? undefined : evmTokenByAddress(ctx.network, asset);
      return {
        asset:
          asset === "native"
            ? { id: "eth", type: "native", groupId: "eth", decimals: 18 }
            : { id: asset, type: "erc20", groupId: (token?.symbol ?? asset).toLowerCase(), decimals: token?.decimals ?? 18 },
        value: Number(amount),
        valueStr: amount.toString(),
      };
    })
    .sort((a, b) => (a.asset.type === "native" ? -1 : b.asset.type === "native" ? 1 : a.asset.id.localeCompare(b.asset.id)));
  const size = typeof query.pageSize === "number" && query.pageSize > 0 ? Math.min(query.pageSize, 100) : 20;
  const offset = typeof query.pageToken === "string" && /^[0-9]+$/.test(query.pageToken) ? Number(query.pageToken) : 0;
  const page = rows.slice(offset, offset + size);
  return { balances: page, nextPageToken: offset + size < rows.length ? String(offset + size) : "", totalCount: rows.length };
}
