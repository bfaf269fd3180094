/** Transactions, receipts and blocks as an Ethereum node writes them, from the ledger's records. */
import { encodeErrorResult, type Hex } from "viem";
import { blockHashOf } from "../../chain/blocks.js";
import type { LedgerTx } from "../../chain/evm/ledger.js";
import { hex } from "./context.js";

export const ZERO_BLOOM = `0x${"0".repeat(512)}` as Hex;
const ERROR_ABI = [{ type: "error", name: "Error", inputs: [{ name: "message", type: "string" }] }] as const;

/** The sandbox's hash of block `n` of a network (defined with the blocks). */
export const blockHash = blockHashOf;

export function txView(tx: LedgerTx, mined: boolean) {
  return {
    hash: tx.hash,
    from: tx.from,
    to: tx.to,
    value: hex(BigInt(tx.value)),
    input: tx.input,
    nonce: hex(tx.nonce),
    gas: hex(BigInt(tx.gas)),
    gasPrice: hex(BigInt(tx.gasPrice)),
    maxFeePerGas: hex(BigInt(tx.gasPrice)),
    maxPriorityFeePerGas: "0x0",
    type: tx.type === "legacy" ? "0x0" : tx.type === "eip2930" ? "0x1" : tx.type === "eip7702" ? "0x4" : "0x2",
    chainId: hex(tx.chainId),
    blockNumber: mined ? hex(tx.block) : null,
    blockHash: mined ? blockHash(tx.network, tx.block) : null,
    transactionIndex: mined ? "0x0" : null,
    accessList: [],
    v: "0x0",
    r: "0x0",
    s: "0x0",
    yParity: "0x0",
  };
}

export function receiptView(tx: LedgerTx) {
  const block = { blockNumber: hex(tx.block), blockHash: blockHash(tx.network, tx.block), transactionHash: tx.hash, transactionIndex: "0x0" };
  return {
    ...block,
    from: tx.from,
    to: tx.to,
    contractAddress: tx.contractAddress ?? null,
    cumulativeGasUsed: hex(BigInt(tx.gasUsed)),
    gasUsed: hex(BigInt(tx.gasUsed)),
    effectiveGasPrice: hex(BigInt(tx.gasPrice)),
    status: tx.status === "success" ? "0x1" : "0x0",
    // As Besu reports it: the ABI-encoded Error(string) of a contract that said why it reverted.
    ...(tx.revertReason ? { revertReason: encodeErrorResult({ abi: ERROR_ABI, errorName: "Error", args: [tx.revertReason] }) } : {}),
    ...(tx.revertData && tx.revertData !== "0x" ? { revertReason: tx.revertData } : {}),
    type: txView(tx, true).type,
    logsBloom: ZERO_BLOOM,
    logs: tx.logs.map((l) => ({ ...block, address: l.address, topics: l.topics, data: l.data, logIndex: hex(l.logIndex), removed: false })),
  };
}
