/**
 * The EVM chain, as the platform's areas see it: networks and the token table, transactions applied on the ledger
 * or run as bytecode, nonces, allowances and permits, the contracts modelled in TypeScript, Permit2. Areas import
 * this file and the shared ledger (chain/index.ts), never the engine behind them (the runtime, its state, storage).
 */
export { bytecodeAccounts } from "./contractAccounts.js";
export { applyTransaction, type ChainContracts, runsBytecode } from "./executeTransaction.js";
export { ledgerContractModel } from "./ledgerContract.js";
export type { ModelledContract } from "./modelled.js";
export { nextNonce, setNextNonce, takeNonce } from "./nonces.js";
export { PERMIT_TYPES, tokenContractsOf } from "./tokenModel.js";
export { CALL_GAS_CAP, submissionRefusal, userOperationGasRefusal } from "./submissionLimits.js";
export {
  allowanceOf,
  type ContractCallResult,
  type EvmTransactionInput,
  executePermit,
  faucetPayout,
  GAS_PRICE_WEI,
  type LedgerLog,
  type LedgerTx,
  ledgerRecord,
  ledgerTxs,
  moveToken,
  permitNonceOf,
  recordPayout,
  type SandboxContract,
  setAllowance,
  TRANSFER_TOPIC,
  transferLog,
} from "./ledger.js";
export { chainIdOf, EVM_NETWORKS, networkOfChainId } from "../networks.js";
export { PERMIT2_ADDRESS, permitTransferFromHash, permitTransferFromTypedData } from "../permit2.js";
export { EVM_TOKENS, type EvmToken, evmTokenByAddress, evmTokenBySymbol, evmTokensOf, NATIVE_TOKEN_ADDRESS } from "../tokens.js";
