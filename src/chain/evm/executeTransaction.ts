/**
 * A transaction that runs bytecode, applied to the ledger as `applyEvmTransaction` applies the others: the
 * sender pays the gas it burns at the ledger's gas price (unless sponsored), a sender who cannot pay is refused
 * and nothing changes, and a revert is mined with its fee spent and everything else undone.
 */
import { apiError } from "../../errors/catalogue.js";
import type { Clock } from "../../clock.js";
import type { ProjectTx } from "../../store/store.js";
import { applyEvmTransaction, type EvmTransactionInput, GAS_PRICE_WEI, type LedgerTx, ledgerRecord, ledgerTxs, type SandboxContract } from "./ledger.js";
import { evmBalanceOf, setEvmBalance } from "./balances.js";
import { inclusionBlock } from "../mining.js";
import { NATIVE_TOKEN_ADDRESS } from "../tokens.js";
import { hasDeployedCode } from "./ledgerState.js";
import { canonicalCodeAt } from "./canonical.js";
import type { ModelledContract } from "./modelled.js";
import { reportEvmRevert } from "./revertTrace.js";
import { runEvm } from "./runtime.js";

/** The precompiles of Prague sit at 0x…01 to 0x…11 (ecrecover to the BLS12-381 map to G2). */
const LAST_PRECOMPILE = 0x11;
const PRECOMPILE_PREFIX = "0x00000000000000000000000000000000000000";

/** A precompile's address: a call to it runs the precompile, as a node's EVM does, though no code is stored there. */
function isPrecompile(to: string): boolean {
  if (to.length !== 42 || !to.startsWith(PRECOMPILE_PREFIX)) return false;
  const n = Number.parseInt(to.slice(40), 16);
  return n >= 1 && n <= LAST_PRECOMPILE;
}

/** Whether a transaction to `to` runs bytecode: a creation, or a call of deployed or canonical code or of a precompile. */
export function runsBytecode(store: ProjectTx, network: string, to: string | null): boolean {
  return to === null || canonicalCodeAt(to) !== undefined || isPrecompile(to) || hasDeployedCode(store, network, to);
}

async function executeEvmTransaction(
  store: ProjectTx,
  clock: Clock,
  tx: EvmTransactionInput,
  models: (network: string) => readonly ModelledContract[],
): Promise<LedgerTx> {
  const held = evmBalanceOf(store, tx.network, NATIVE_TOKEN_ADDRESS, tx.from);
  if (held < tx.value) {
    throw apiError("insufficient_balance", `${tx.from} has ${held} wei on ${tx.network}; this transaction sends ${tx.value}.`);
  }
  const undo = store.savepoint();
  const block = tx.block ?? inclusionBlock(store, clock, tx.network);
  const outcome = await runEvm(
    { store, clock, network: tx.network, chainId: tx.chainId, block },
    { from: tx.from, to: tx.to, value: tx.value, data: tx.input, gasLimit: tx.gas, ...(tx.internal ? { internal: true } : { nonce: tx.nonce }) },
    models,
    { commit: true },
  );
  const fee = tx.sponsored ? 0n : outcome.gasUsed * GAS_PRICE_WEI;
  const left = evmBalanceOf(store, tx.network, NATIVE_TOKEN_ADDRESS, tx.from);
  if (left < fee) {
    undo();
    throw apiError("insufficient_balance", `${tx.from} has ${held} wei on ${tx.network}; this transaction needs ${tx.value} and gas ${fee}.`);
  }
  setEvmBalance(store, tx.network, NATIVE_TOKEN_ADDRESS, tx.from, left - fee);
  if (outcome.revert) reportEvmRevert(store, { ...outcome.revert, transactionHash: tx.hash as `0x${string}` });
  const record = ledgerRecord(clock, tx, block, {
    gasUsed: outcome.gasUsed,
    status: outcome.success ? "success" : "reverted",
    ...(outcome.success ? {} : { revertData: outcome.returnValue }),
    ...(outcome.createdAddress ? { contractAddress: outcome.createdAddress } : {}),
    logs: outcome.logs.map((log, logIndex) => ({ ...log, logIndex })),
  });
  ledgerTxs(store).put(record.hash, record);
  return record;
}

/** The contracts a transaction may reach: those the ledger applies directly, and the models the EVM runs. */
export interface ChainContracts {
  ledger: readonly SandboxContract[];
  evm: (network: string) => readonly ModelledContract[];
}

/**
 * Applies a transaction wherever it runs: in the EVM when it creates a contract or calls code, else on the
 * ledger (transfers, token calls, the modelled contracts' own calls).
 */
export function applyTransaction(store: ProjectTx, clock: Clock, tx: EvmTransactionInput, contracts: ChainContracts): Promise<LedgerTx> | LedgerTx {
  return runsBytecode(store, tx.network, tx.to)
    ? executeEvmTransaction(store, clock, tx, contracts.evm)
    : applyEvmTransaction(store, clock, tx, contracts.ledger);
}
