/**
 * The contracts of the simulated chain beyond ERC-20 tokens, as the ledger
 * runs them: whoever applies an EVM transaction (a send, a user operation,
 * the node) passes this table to `applyEvmTransaction`.
 */
import {
  type ChainContracts,
  ledgerContractModel,
  type ModelledContract,
  PERMIT2_ADDRESS,
  type SandboxContract,
  tokenContractsOf,
} from "../chain/evm/index.js";
import { morphoBlue } from "./borrowing/morpho.js";
import { commerceTransfers } from "./shared/charges/transfers.js";
import { spendPermissionManager } from "../wallet/spend-permissions/manager.js";
import { swapSettler } from "./swaps/settler.js";

export const SANDBOX_CONTRACTS: readonly SandboxContract[] = [swapSettler, spendPermissionManager, morphoBlue, commerceTransfers];

/** Addresses with code on every network besides tokens (what `eth_getCode` reports): the contracts above and Permit2. */
export function hasSandboxCode(address: string): boolean {
  const a = address.toLowerCase();
  return a === PERMIT2_ADDRESS.toLowerCase() || SANDBOX_CONTRACTS.some((c) => c.address.toLowerCase() === a);
}

const LEDGER_CONTRACT_MODELS = SANDBOX_CONTRACTS.map(ledgerContractModel);

/**
 * The contracts the EVM runs as TypeScript models (precompiles at their addresses), per network: the table's
 * tokens and the contracts above, so deployed bytecode can call them.
 */
export function EVM_MODELS(network: string): readonly ModelledContract[] {
  let models = modelsByNetwork.get(network);
  if (!models) {
    models = [...tokenContractsOf(network), ...LEDGER_CONTRACT_MODELS];
    modelsByNetwork.set(network, models);
  }
  return models;
}
const modelsByNetwork = new Map<string, readonly ModelledContract[]>();

/** Both tables, for whoever applies a transaction that may run bytecode (`applyTransaction`). */
export const CHAIN_CONTRACTS: ChainContracts = { ledger: SANDBOX_CONTRACTS, evm: EVM_MODELS };
