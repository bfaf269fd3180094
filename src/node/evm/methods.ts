/** The EVM JSON-RPC methods the node answers: method name → function. */
import type { RpcMethod } from "../jsonRpc.js";
import {
  eth_blockNumber,
  eth_chainId,
  eth_feeHistory,
  eth_gasPrice,
  eth_getBlockByHash,
  eth_getBlockByNumber,
  eth_maxPriorityFeePerGas,
  net_version,
} from "./chain.js";
import {
  eth_estimateUserOperationGas,
  eth_getUserOperationByHash,
  eth_getUserOperationReceipt,
  eth_sendUserOperation,
  eth_supportedEntryPoints,
  pimlico_getUserOperationGasPrice,
  pm_getPaymasterData,
  pm_getPaymasterStubData,
} from "./bundler.js";
import { eth_getStorageAt } from "./bytecode.js";
import { type EvmNodeContext, readOnlyEvm } from "./context.js";
import { eth_getLogs } from "./logs.js";
import { withCheckedParams } from "./paramShapes.js";
import { cdp_listBalances, eth_call, eth_getBalance, eth_getCode, eth_getTransactionCount } from "./state.js";
import { eth_estimateGas, eth_getTransactionByHash, eth_getTransactionReceipt, eth_sendRawTransaction } from "./transactions.js";

export const evmMethods: Readonly<Record<string, RpcMethod<EvmNodeContext>>> = withCheckedParams({
  eth_chainId,
  net_version,
  eth_blockNumber,
  eth_gasPrice,
  eth_maxPriorityFeePerGas,
  eth_feeHistory,
  eth_getBlockByNumber,
  eth_getBlockByHash,
  eth_getBalance,
  eth_getTransactionCount,
  eth_getCode,
  eth_getStorageAt,
  eth_call: readOnlyEvm(eth_call),
  eth_getLogs,
  cdp_listBalances,
  eth_getTransactionByHash,
  eth_getTransactionReceipt,
  eth_sendRawTransaction,
  eth_estimateGas: readOnlyEvm(eth_estimateGas),
  // ERC-4337 bundler and ERC-7677 paymaster (bundler.ts)
  eth_supportedEntryPoints,
  eth_estimateUserOperationGas: readOnlyEvm(eth_estimateUserOperationGas),
  eth_sendUserOperation,
  eth_getUserOperationByHash,
  eth_getUserOperationReceipt,
  pimlico_getUserOperationGasPrice,
  pm_getPaymasterStubData,
  pm_getPaymasterData,
});
