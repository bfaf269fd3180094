/** The chain itself: its id, its blocks on the sandbox clock, and a fixed gas price. */
import { keccak256 } from "viem";
import { BLOCK_COINBASE, blockTimestampOf, prevRandaoOf } from "../../chain/blocks.js";
import { GAS_PRICE_WEI, ledgerTxs } from "../../chain/evm/ledger.js";
import { BLOCK_GAS_LIMIT } from "../../chain/evm/submissionLimits.js";
import { RpcError } from "../jsonRpc.js";
import { type EvmNodeContext, hex, latestBlock } from "./context.js";
import { blockHash, txView, ZERO_BLOOM } from "./views.js";

export const eth_chainId = (_params: unknown[], ctx: EvmNodeContext) => hex(ctx.chainId);

export const net_version = (_params: unknown[], ctx: EvmNodeContext) => String(ctx.chainId);

export const eth_blockNumber = (_params: unknown[], ctx: EvmNodeContext) => hex(latestBlock(ctx));

export const eth_gasPrice = () => hex(GAS_PRICE_WEI);

export const eth_maxPriorityFeePerGas = () => "0x0";

export function eth_feeHistory(params: unknown[], ctx: EvmNodeContext) {
  const now = latestBlock(ctx);
  // geth answers at most 1,024 blocks, and never more than the chain has: a count of 1e9 must not allocate 1e9 entries.
  const asked = Number(params[0] ?? 1);
  const count = Number.isSafeInteger(asked) && asked > 0 ? Math.min(asked, 1_024, now + 1) : 1;
  return {
    oldestBlock: hex(Math.max(0, now - count + 1)),
    baseFeePerGas: Array(count + 1).fill(hex(GAS_PRICE_WEI)),
    gasUsedRatio: Array(count).fill(0.5),
    reward: Array(count).fill(["0x0"]),
  };
}

/** Block `n` with its transactions (hashes, or whole when `full`); null beyond the latest. */
function block(ctx: EvmNodeContext, n: number, full: boolean) {
  if (n > latestBlock(ctx)) return null;
  const { network } = ctx;
  const txs = ledgerTxs(ctx.store).filter((t) => t.network === network && t.block === n);
  return {
    number: hex(n),
    hash: blockHash(network, n),
    parentHash: blockHash(network, Math.max(0, n - 1)),
    timestamp: hex(Math.floor(blockTimestampOf(network, n) / 1000)),
    nonce: "0x0000000000000000",
    difficulty: "0x0",
    gasLimit: hex(BLOCK_GAS_LIMIT),
    gasUsed: hex(txs.reduce((s, t) => s + Number(t.gasUsed), 0)),
    baseFeePerGas: hex(GAS_PRICE_WEI),
    miner: BLOCK_COINBASE,
    mixHash: prevRandaoOf(network, n),
    extraData: "0x",
    logsBloom: ZERO_BLOOM,
    sha3Uncles: keccak256("0x"),
    stateRoot: blockHash(network, n),
    receiptsRoot: blockHash(network, n),
    transactionsRoot: blockHash(network, n),
    size: "0x0",
    uncles: [],
    transactions: full ? txs.map((t) => txView(t, true)) : txs.map((t) => t.hash),
  };
}

export function eth_getBlockByNumber(params: unknown[], ctx: EvmNodeContext) {
  const tag = params[0];
  const now = latestBlock(ctx);
  if (tag === "latest" || tag === "pending" || tag === "safe" || tag === "finalized") return block(ctx, now, Boolean(params[1]));
  if (tag === "earliest") return block(ctx, 0, Boolean(params[1]));
  // As geth: a tag or a hex quantity, anything else is invalid params (not an internal error). A number past the
  // latest block (however large) has no block yet.
  if (typeof tag !== "string" || !/^0x[0-9a-fA-F]{1,64}$/.test(tag))
    throw new RpcError(-32602, `invalid block number ${JSON.stringify(tag) ?? "undefined"}: a tag or a hex quantity`);
  const n = BigInt(tag);
  return n > BigInt(now) ? null : block(ctx, Number(n), Boolean(params[1]));
}

/** Any hash names the latest block: the sandbox keeps no index of block hashes. */
export const eth_getBlockByHash = (params: unknown[], ctx: EvmNodeContext) => block(ctx, latestBlock(ctx), Boolean(params[1]));
