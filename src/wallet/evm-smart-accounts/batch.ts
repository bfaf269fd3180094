/**
 * The calls of a user operation on the ledger, run as a smart wallet's
 * `executeBatch` runs them: in order, from the account, all or nothing —
 * when one reverts, the batch is undone and the operation's transaction is
 * recorded as reverted with the reason. The platform's user operations and
 * the node's bundler both execute through here. Each call is a ledger
 * transaction whose hash derives from the operation's hash and the call's
 * index; the first one's hash is the operation's transaction hash. A call
 * to deployed code runs in the EVM, from the account, without using its nonce.
 */
import { encodeAbiParameters, type Hex, keccak256 } from "viem";
import {
  applyTransaction,
  type ChainContracts,
  chainIdOf,
  type EvmTransactionInput,
  GAS_PRICE_WEI,
  type LedgerLog,
  ledgerRecord,
  type LedgerTx,
  ledgerTxs,
  NATIVE_TOKEN_ADDRESS,
} from "../../chain/evm/index.js";
import { balanceOf, inclusionBlock, setBalance } from "../../chain/index.js";
import type { Clock } from "../../clock.js";
import { ApiError } from "../../errors/catalogue.js";
import type { ProjectTx } from "../../store/store.js";

export interface BatchCall {
  to: `0x${string}`;
  value: bigint;
  data: Hex;
  /** This call's own gas (a platform call's `overrideGasLimit`); without it 200,000, unless the batch shares a `gasLimit`. */
  gas?: bigint;
}

export interface BatchResult {
  status: "success" | "reverted";
  transactionHash: Hex;
  /** Gas the calls burnt (those attempted, when the batch reverted). */
  gasUsed: bigint;
  /** What the account paid for that gas: nothing when sponsored. */
  fee: bigint;
  revertReason?: string;
  /** Every log of the calls, in order (none when the batch reverted). */
  logs: LedgerLog[];
  /** The block every call of the batch is included in. */
  block: number;
}

/** The ledger hash of call `index` of the operation `operationHash`. */
const callHash = (operationHash: Hex, index: number) =>
  keccak256(encodeAbiParameters([{ type: "bytes32" }, { type: "uint256" }], [operationHash, BigInt(index)]));

/**
 * Runs `calls` from `from` on `network`. With `shortfallReverts`, a call whose value the account does not hold
 * reverts the batch (as inside an EntryPoint, which has already taken the gas); otherwise the 400
 * insufficient_balance of the ledger refuses the request. With `gasLimit`, the calls share that gas as inside an
 * EntryPoint: the wallet's `executeBatch` runs under the operation's callGasLimit and gives each call all the gas
 * left, so a call that needs more than is left runs out of gas and reverts the batch.
 *
 * @example executeBatch(store, clock, ctx.contracts, { network: "base-sepolia", from, calls, operationHash, sponsored: true })
 */
export async function executeBatch(
  store: ProjectTx,
  clock: Clock,
  contracts: ChainContracts,
  o: {
    network: string;
    from: `0x${string}`;
    calls: readonly BatchCall[];
    operationHash: Hex;
    sponsored: boolean;
    shortfallReverts?: boolean;
    gasLimit?: bigint;
  },
): Promise<BatchResult> {
  const chainId = chainIdOf(o.network) ?? 0;
  const transactionHash = callHash(o.operationHash, 0);
  // One block for the whole batch, mined before the savepoint: a reverted batch is still included.
  const block = inclusionBlock(store, clock, o.network);
  const undo = store.savepoint();
  const applied: LedgerTx[] = [];
  let gasUsed = 0n;
  for (const [index, call] of o.calls.entries()) {
    const gasLeft = o.gasLimit === undefined ? undefined : o.gasLimit - gasUsed;
    const input: EvmTransactionInput & { block: number } = {
      hash: callHash(o.operationHash, index),
      network: o.network,
      chainId,
      from: o.from,
      to: call.to,
      value: call.value,
      input: call.data,
      nonce: index,
      gas: gasLeft ?? call.gas ?? 200_000n,
      type: "eip1559",
      sponsored: o.sponsored,
      block,
      internal: true,
    };
    let tx: LedgerTx;
    try {
      tx = await applyTransaction(store, clock, input, contracts);
    } catch (error) {
      if (!o.shortfallReverts || !(error instanceof ApiError) || error.errorType !== "insufficient_balance") throw error;
      tx = shortfall(clock, input, error.message);
    }
    // The ledger's own calls (transfers, tokens) burn a fixed gas whatever their limit: past what is left, out of gas.
    if (gasLeft !== undefined && BigInt(tx.gasUsed) > gasLeft) tx = outOfGas(clock, input, gasLeft);
    gasUsed += BigInt(tx.gasUsed);
    if (tx.status === "reverted") {
      undo();
      const reason = `call ${index} of ${o.calls.length} reverted${tx.revertReason ? `: ${tx.revertReason}` : ""}; the batch was undone`;
      // The gas of the calls attempted is spent all the same, as on a chain.
      const fee = o.sponsored ? 0n : gasUsed * GAS_PRICE_WEI;
      if (fee > 0n) {
        const held = balanceOf(store, o.network, NATIVE_TOKEN_ADDRESS, o.from);
        setBalance(store, o.network, NATIVE_TOKEN_ADDRESS, o.from, held > fee ? held - fee : 0n);
      }
      ledgerTxs(store).put(transactionHash, { ...tx, hash: transactionHash, gasUsed: gasUsed.toString(), logs: [], revertReason: reason });
      return { status: "reverted", transactionHash, gasUsed, fee, revertReason: reason, logs: [], block };
    }
    applied.push(tx);
  }
  return {
    status: "success",
    transactionHash,
    gasUsed,
    fee: o.sponsored ? 0n : gasUsed * GAS_PRICE_WEI,
    logs: applied.flatMap((t) => t.logs),
    block,
  };
}

/** The record of a call that needed more gas than the batch had left: it reverts, burning all of it. */
function outOfGas(clock: Clock, tx: EvmTransactionInput & { block: number }, gasLeft: bigint): LedgerTx {
  return ledgerRecord(clock, tx, tx.block, { gasUsed: gasLeft, status: "reverted", revertReason: "out of gas", logs: [] });
}

/** The record of a call that could not move its value: it reverts, burning a plain transfer's gas. */
function shortfall(clock: Clock, tx: EvmTransactionInput & { block: number }, message: string): LedgerTx {
  return ledgerRecord(clock, tx, tx.block, { gasUsed: 21_000n, status: "reverted", revertReason: message, logs: [] });
}
