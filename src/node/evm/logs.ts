/**
 * `eth_getLogs`: the logs of the project's mined transactions on this network — real bytecode logs and the
 * modelled contracts' (tokens' Transfer and Approval, the swap settler's…) alike — filtered as a node filters them.
 */
import type { Hex } from "viem";
import { ledgerTxs } from "../../chain/evm/ledger.js";
import { RpcError } from "../jsonRpc.js";
import { type EvmNodeContext, hex, latestBlock } from "./context.js";
import { blockHash } from "./views.js";

interface LogFilter {
  fromBlock?: unknown;
  toBlock?: unknown;
  address?: unknown;
  topics?: unknown;
  blockHash?: unknown;
}

function blockOf(tag: unknown, ctx: EvmNodeContext, fallback: number): number {
  if (tag === undefined || tag === null) return fallback;
  if (tag === "latest" || tag === "pending" || tag === "safe" || tag === "finalized") return latestBlock(ctx);
  if (tag === "earliest") return 0;
  if (typeof tag === "string" && /^0x[0-9a-fA-F]+$/.test(tag)) return Number(BigInt(tag));
  throw new RpcError(-32602, `invalid block ${JSON.stringify(tag)}: a hex number or a tag`);
}

/** One value or a list of them, each 0x and `digits` hex digits (an address 40, a topic 64), as geth decodes them. */
const hexList = (v: unknown, what: string, digits: number): string[] => {
  const list = Array.isArray(v) ? v : [v];
  const shape = new RegExp(`^0x[0-9a-fA-F]{${digits}}$`);
  for (const item of list)
    if (typeof item !== "string" || !shape.test(item)) throw new RpcError(-32602, `invalid ${what} ${JSON.stringify(item)}: 0x and ${digits} hex digits`);
  return (list as string[]).map((s) => s.toLowerCase());
};

export function eth_getLogs(params: unknown[], ctx: EvmNodeContext) {
  const filter = (params[0] ?? {}) as LogFilter;
  if (typeof filter !== "object") throw new RpcError(-32602, "params[0] must be a filter object");
  const head = latestBlock(ctx);
  let from: number;
  let to: number;
  if (filter.blockHash !== undefined) {
    hexList([filter.blockHash], "blockHash", 64);
    // The sandbox's block hashes are derived from the number: find it among the mined transactions' blocks.
    const wanted = String(filter.blockHash).toLowerCase();
    const tx = ledgerTxs(ctx.store).find((t) => t.network === ctx.network && blockHash(ctx.network, t.block).toLowerCase() === wanted);
    if (!tx) return [];
    from = to = tx.block;
  } else {
    from = blockOf(filter.fromBlock, ctx, head);
    // No range limit: the walk is over the project's transactions, not over blocks.
    to = Math.min(blockOf(filter.toBlock, ctx, head), head);
  }
  const addresses = filter.address === undefined || filter.address === null ? undefined : new Set(hexList(filter.address, "address", 40));
  const topics = Array.isArray(filter.topics)
    ? filter.topics.map((t, i) => (t === null || t === undefined ? undefined : new Set(hexList(t, `topics[${i}]`, 64))))
    : [];
  const txs = ledgerTxs(ctx.store)
    .filter((t) => t.network === ctx.network && t.status === "success" && t.block >= from && t.block <= to)
    .sort((a, b) => a.block - b.block || a.submittedAtMs - b.submittedAtMs);
  const out: object[] = [];
  const indexInBlock = new Map<number, number>();
  for (const tx of txs) {
    for (const log of tx.logs) {
      const logIndex = indexInBlock.get(tx.block) ?? 0;
      indexInBlock.set(tx.block, logIndex + 1);
      if (addresses && !addresses.has(log.address.toLowerCase())) continue;
      if (topics.some((wanted, i) => wanted && !(log.topics[i] !== undefined && wanted.has(log.topics[i]!.toLowerCase())))) continue;
      out.push({
        address: log.address,
        topics: log.topics,
        data: log.data as Hex,
        blockNumber: hex(tx.block),
        blockHash: blockHash(ctx.network, tx.block),
        transactionHash: tx.hash,
        transactionIndex: "0x0",
        logIndex: hex(logIndex),
        removed: false,
      });
    }
  }
  return out;
}
