/**
 * The SQL API's tables, built from the project's ledger: one schema per
 * network (`base`, `base_sepolia`) with blocks, transactions, events
 * (decoded ERC-20 Transfer/Approval logs) and transfers. Only mined blocks
 * (on the sandbox clock) are visible, as on a real indexer.
 */
import { decodeEventLog, erc20Abi } from "viem";
import { ledgerTxs } from "../../chain/evm/index.js";
import { blockTimestampOf, headBlock } from "../../chain/index.js";
import type { Schema } from "../../contract/types.js";
import type { ProjectTx } from "../../store/store.js";

/** A column type as the SQL API names it in query results. */
export type ColumnType = NonNullable<NonNullable<NonNullable<Schema<"OnchainDataResult">["schema"]>["columns"]>[number]["type"]>;

interface ColumnSpec {
  name: string;
  type: ColumnType;
  sqlite: "TEXT" | "INTEGER" | "REAL";
  nullable?: boolean;
}

export interface TableSpec {
  name: string;
  columns: ColumnSpec[];
}

const col = (name: string, type: ColumnType, nullable = false): ColumnSpec => ({
  name,
  type,
  sqlite: /Int|Bool/.test(type) && !/256|128/.test(type) ? "INTEGER" : /Float/.test(type) ? "REAL" : "TEXT",
  nullable,
});

export const SQL_NETWORKS: Record<string, string> = { base: "base", base_sepolia: "base-sepolia" };

export const TABLES: TableSpec[] = [
  { name: "blocks", columns: [col("block_number", "UInt64"), col("block_hash", "String"), col("timestamp", "DateTime"), col("transaction_count", "UInt64")] },
  {
    name: "transactions",
    columns: [
      col("block_number", "UInt64"),
      col("block_hash", "String"),
      col("transaction_hash", "String"),
      col("transaction_index", "UInt64"),
      col("from_address", "String"),
      col("to_address", "String", true),
      col("value", "UInt256"),
      col("gas", "UInt64"),
      col("gas_price", "UInt64"),
      col("nonce", "UInt64"),
      col("input", "String"),
      col("status", "UInt8"),
      col("timestamp", "DateTime"),
    ],
  },
  {
    name: "events",
    columns: [
      col("block_number", "UInt64"),
      col("transaction_hash", "String"),
      col("log_index", "UInt64"),
      col("address", "String"),
      col("event_name", "String"),
      col("event_signature", "String"),
      col("parameters", "String"),
      col("timestamp", "DateTime"),
    ],
  },
  {
    name: "transfers",
    columns: [
      col("block_number", "UInt64"),
      col("transaction_hash", "String"),
      col("log_index", "UInt64"),
      col("token_address", "String"),
      col("from_address", "String"),
      col("to_address", "String"),
      col("value", "UInt256"),
      col("timestamp", "DateTime"),
    ],
  },
];

const iso = (ms: number) =>
  new Date(ms)
    .toISOString()
    .replace("T", " ")
    .replace(/\.\d+Z$/, "");

/** Rows per schema.table from the ledger. */
export function ledgerRows(store: ProjectTx, nowMs: number): Record<string, Array<Record<string, unknown>>> {
  const out: Record<string, Array<Record<string, unknown>>> = {};
  for (const [schema, network] of Object.entries(SQL_NETWORKS)) {
    const head = headBlock(store, network, nowMs);
    const txs = ledgerTxs(store)
      .filter((t) => t.network === network && t.block <= head)
      .sort((a, b) => a.block - b.block || a.submittedAtMs - b.submittedAtMs);
    const blocks = new Map<number, number>();
    const transactions: Array<Record<string, unknown>> = [];
    const events: Array<Record<string, unknown>> = [];
    const transfers: Array<Record<string, unknown>> = [];
    for (const t of txs) {
      const index = blocks.get(t.block) ?? 0;
      blocks.set(t.block, index + 1);
      const timestamp = iso(blockTimestampOf(network, t.block));
      const blockHash = `block:${network}:${t.block}`;
      transactions.push({
        block_number: t.block,
        block_hash: blockHash,
        transaction_hash: t.hash,
        transaction_index: index,
        from_address: t.from.toLowerCase(),
        to_address: t.to?.toLowerCase() ?? null,
        value: t.value,
        gas: Number(t.gas),
        gas_price: Number(t.gasPrice),
        nonce: t.nonce,
        input: t.input,
        status: t.status === "success" ? 1 : 0,
        timestamp,
      });
      if (t.status !== "success") continue;
      for (const log of t.logs) {
        try {
          const decoded = decodeEventLog({ abi: erc20Abi, data: log.data, topics: log.topics as never });
          const args = decoded.args as Record<string, unknown>;
          const parameters = JSON.stringify(
            Object.fromEntries(Object.entries(args).map(([k, v]) => [k, typeof v === "bigint" ? v.toString() : String(v).toLowerCase()])),
          );
          const signature = decoded.eventName === "Transfer" ? "Transfer(address,address,uint256)" : "Approval(address,address,uint256)";
          events.push({
            block_number: t.block,
            transaction_hash: t.hash,
            log_index: log.logIndex,
            address: log.address.toLowerCase(),
            event_name: decoded.eventName,
            event_signature: signature,
            parameters,
            timestamp,
          });
          if (decoded.eventName === "Transfer") {
            transfers.push({
              block_number: t.block,
              transaction_hash: t.hash,
              log_index: log.logIndex,
              token_address: log.address.toLowerCase(),
              from_address: String(args.from).toLowerCase(),
              to_address: String(args.to).toLowerCase(),
              value: String(args.value),
              timestamp,
            });
          }
        } catch {
          // not an ERC-20 event
        }
      }
    }
    out[`${schema}.blocks`] = [...blocks].map(([n, count]) => ({
      block_number: n,
      block_hash: `block:${network}:${n}`,
      timestamp: iso(blockTimestampOf(network, n)),
      transaction_count: count,
    }));
    out[`${schema}.transactions`] = transactions;
    out[`${schema}.events`] = events;
    out[`${schema}.transfers`] = transfers;
  }
  return out;
}
