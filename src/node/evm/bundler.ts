/**
 * The node's ERC-4337 bundler for EntryPoint v0.6 and v0.7 (what viem's
 * bundler client and permissionless call), and the paymaster methods of
 * ERC-7677 for the sandbox's paymaster, which sponsors whatever names it.
 * User operations run on the caller's ledger through the EntryPoint of the
 * smart-accounts area; a refusal is the bundler error code of ERC-7769 with
 * the EntryPoint's AAxx reason in its message, as bundlers answer.
 */
import { type Hex, toHex } from "viem";
import { GAS_PRICE_WEI, ledgerTxs } from "../../chain/evm/ledger.js";
import { bundledOperation, entryPointRead, estimateGas, handleOperation } from "../../wallet/evm-smart-accounts/entryPoint.js";
import { paymasterFields } from "../../wallet/evm-smart-accounts/paymaster.js";
import { factoryRead, walletCodeAt } from "../../wallet/evm-smart-accounts/smartWalletFactory.js";
import {
  ENTRY_POINTS,
  type EntryPointVersion,
  entryPointVersion,
  readUserOperation,
  UserOperationRejected,
} from "../../wallet/evm-smart-accounts/userOperationFields.js";
import { RpcError } from "../jsonRpc.js";
import { type EvmNodeContext, hex, latestBlock } from "./context.js";
import { blockHash, receiptView } from "./views.js";

const ZERO_ADDRESS = "0x0000000000000000000000000000000000000000";

/**
 * A bundler error whose message holds no hex value: clients read a bundler error by searching its lowercased
 * message for EntryPoint reasons (viem's getBundlerError tries /aa20/, /aa13/, /aa14/… in turn, before the
 * code), so an address or hash that happens to contain "aa20" would turn an AA24 into an AA20. The values
 * are written `0x…` in the message; the whole text is the error's `data.detail`.
 */
function bundlerError(code: number, detail: string): RpcError {
  return new RpcError(code, detail.replace(/0x[0-9a-fA-F]{4,}/g, "0x…"), { detail });
}

function versionOf(entryPoint: unknown): EntryPointVersion {
  const version = entryPointVersion(entryPoint);
  if (!version) throw bundlerError(-32602, `unsupported entry point ${String(entryPoint)}: this bundler serves ${Object.values(ENTRY_POINTS).join(", ")}`);
  return version;
}

/** Runs a domain step, answering its refusals with their bundler error codes. */
async function bundlerCall<T>(step: () => T | Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    if (error instanceof UserOperationRejected) throw bundlerError(error.code, error.message);
    throw error;
  }
}

export const eth_supportedEntryPoints = () => Object.values(ENTRY_POINTS);

export async function eth_estimateUserOperationGas(params: unknown[], ctx: EvmNodeContext) {
  const version = versionOf(params[1]);
  const gas = await bundlerCall(() => estimateGas(ctx, version, readUserOperation(params[0], version, { estimate: true })));
  return Object.fromEntries(Object.entries(gas).map(([field, value]) => [field, hex(value)]));
}

export function eth_sendUserOperation(params: unknown[], ctx: EvmNodeContext) {
  const version = versionOf(params[1]);
  return bundlerCall(() => handleOperation(ctx, version, readUserOperation(params[0], version, { estimate: false })));
}

/** The operation as sent, and where it was included (null fields until its block is reached); null when unknown. */
export function eth_getUserOperationByHash(params: unknown[], ctx: EvmNodeContext) {
  const op = bundledOperation(ctx, String(params[0]));
  if (!op) return null;
  const included = op.block <= latestBlock(ctx);
  return {
    userOperation: op.userOperation,
    entryPoint: op.entryPoint,
    transactionHash: included ? op.transactionHash : null,
    blockHash: included ? blockHash(ctx.network, op.block) : null,
    blockNumber: included ? hex(op.block) : null,
  };
}

/** What the operation did, once its block is reached; null before, as bundlers answer. */
export function eth_getUserOperationReceipt(params: unknown[], ctx: EvmNodeContext) {
  const op = bundledOperation(ctx, String(params[0]));
  const tx = op && ledgerTxs(ctx.store).get(op.transactionHash);
  if (!op || !tx || op.block > latestBlock(ctx)) return null;
  const receipt = receiptView(tx);
  // The bundle's transaction carries every log of the operation's calls.
  const logs = op.logs.map((l, i) => ({
    blockNumber: receipt.blockNumber,
    blockHash: receipt.blockHash,
    transactionHash: receipt.transactionHash,
    transactionIndex: receipt.transactionIndex,
    address: l.address,
    topics: l.topics,
    data: l.data,
    logIndex: hex(i),
    removed: false,
  }));
  return {
    userOpHash: op.userOpHash,
    entryPoint: op.entryPoint,
    sender: op.sender,
    nonce: hex(BigInt(op.nonce)),
    paymaster: op.paymaster ?? ZERO_ADDRESS,
    actualGasCost: hex(BigInt(op.actualGasCost)),
    actualGasUsed: hex(BigInt(op.actualGasUsed)),
    success: op.success,
    reason: op.reason ?? "",
    logs,
    receipt: { ...receipt, logs, gasUsed: hex(BigInt(op.actualGasUsed)), cumulativeGasUsed: hex(BigInt(op.actualGasUsed)) },
  };
}

/** permissionless's gas price method: the ledger burns gas at its base fee, so every speed pays that with headroom. */
export function pimlico_getUserOperationGasPrice() {
  const at = (multiplier: bigint) => ({ maxFeePerGas: hex((GAS_PRICE_WEI * multiplier) / 10n), maxPriorityFeePerGas: "0x0" });
  return { slow: at(11n), standard: at(15n), fast: at(20n) };
}

/** ERC-7677: the sandbox's paymaster fields (paymaster.ts) for the operation's EntryPoint version, on this chain only. */
function paymasterFieldsFor(params: unknown[], ctx: EvmNodeContext, withGas: boolean) {
  const version = versionOf(params[1]);
  const chainId = params[2];
  if (chainId !== undefined && (typeof chainId !== "string" || !/^0x[0-9a-fA-F]{1,16}$/.test(chainId) || BigInt(chainId) !== BigInt(ctx.chainId)))
    throw new RpcError(-32602, `chain id ${JSON.stringify(chainId)} is not that of ${ctx.network} (${toHex(ctx.chainId)})`);
  return paymasterFields(version, withGas);
}

export const pm_getPaymasterStubData = (params: unknown[], ctx: EvmNodeContext) => paymasterFieldsFor(params, ctx, true);

export const pm_getPaymasterData = (params: unknown[], ctx: EvmNodeContext) => paymasterFieldsFor(params, ctx, false);

/** What `eth_call` reads of the account-abstraction contracts: a wallet factory's getAddress, an EntryPoint's getNonce. */
export function accountAbstractionRead(ctx: EvmNodeContext, to: string, data: Hex): Hex | undefined {
  return factoryRead(to, data) ?? entryPointRead(ctx, to, data);
}

/** What `eth_getCode` shows of smart wallets: a deployed wallet's code, an EIP-7702 delegation's designator. */
export const accountAbstractionCode = (ctx: EvmNodeContext, address: string): Hex | undefined => walletCodeAt(ctx, ctx.network, address);
