/**
 * The ERC-4337 EntryPoints (v0.6 and v0.7) of the simulated chain, as the
 * node's bundler drives them. A user operation is validated as `handleOps`
 * validates it — the sender is a smart wallet of the project or its initCode
 * deploys one (AA10/AA13/AA14/AA20), the nonce is the next of its key (AA25),
 * the gas is prefunded by the sender (AA21) or sponsored by the sandbox's
 * paymaster (any other paymaster is AA30), and an owner signed the userOpHash
 * (AA24) — then its `execute`/`executeBatch` calls run on the ledger as the
 * platform's user operations run (batch.ts), in the block the sandbox's mining
 * gives it. The calls share the operation's callGasLimit, as the wallet
 * gives each call what is left of the gas the EntryPoint called it with.
 * What the calls burn is the operation's gas, at the ledger's gas price;
 * validation costs nothing. The project's policies do not apply: the
 * bundler is the node's, not the platform API's.
 */
import { decodeFunctionData, encodeAbiParameters, type Hex } from "viem";
import { CALL_GAS_CAP, type ChainContracts, GAS_PRICE_WEI, type LedgerLog, NATIVE_TOKEN_ADDRESS, userOperationGasRefusal } from "../../chain/evm/index.js";
import { balanceOf } from "../../chain/index.js";
import type { Clock } from "../../clock.js";
import { isOwnerSignature } from "../../crypto/smartWallet.js";
import { declareCollection } from "../../store/collections.js";
import type { ProjectTx } from "../../store/store.js";
import { type BatchCall, executeBatch } from "./batch.js";
import { smartWalletOwners } from "./owners.js";
import { PAYMASTER_VERIFICATION_GAS, paymasterOf, SANDBOX_PAYMASTER } from "./paymaster.js";
import { isWalletDeployed, recordDeployment, walletCreatedBy } from "./smartWalletFactory.js";
import {
  ENTRY_POINTS,
  type EntryPointVersion,
  REJECTION,
  type UserOperationFields,
  UserOperationRejected,
  userOperationHash,
  userOperationRpc,
} from "./userOperationFields.js";

/** What the EntryPoint works on: the caller's project ledger on one network. */
export interface EntryPointContext {
  store: ProjectTx;
  clock: Clock;
  network: string;
  chainId: number;
  /** The chain's contracts beyond tokens, which the wallet's calls may reach (HandlerContext's `contracts`). */
  contracts: ChainContracts;
}

/** An operation the bundler included, with what `eth_getUserOperationReceipt` reports of it. */
export interface BundledOperation {
  userOpHash: Hex;
  network: string;
  entryPoint: `0x${string}`;
  sender: `0x${string}`;
  nonce: string;
  paymaster?: `0x${string}`;
  /** The operation in its version's JSON-RPC form. */
  userOperation: Record<string, string>;
  transactionHash: Hex;
  block: number;
  success: boolean;
  reason?: string;
  actualGasUsed: string;
  actualGasCost: string;
  logs: LedgerLog[];
}

export const BUNDLED = declareCollection<BundledOperation>("bundledUserOperations");
const NONCES = declareCollection<{ sequence: string }>("entryPointNonces");

const bundled = (store: ProjectTx) => store.collection(BUNDLED);
const nonceKey = (ctx: EntryPointContext, version: EntryPointVersion, sender: string, key: bigint) =>
  `${ctx.network}|${ENTRY_POINTS[version].toLowerCase()}|${sender.toLowerCase()}|${key}`;

/** EntryPoint.getNonce(sender, key): the key in the high 192 bits, the next sequence number of that key below. */
function entryPointNonce(ctx: EntryPointContext, version: EntryPointVersion, sender: string, key: bigint): bigint {
  const sequence = BigInt(ctx.store.collection(NONCES).get(nonceKey(ctx, version, sender, key))?.sequence ?? "0");
  return (key << 64n) | sequence;
}

const walletAbi = [
  {
    type: "function",
    name: "execute",
    stateMutability: "payable",
    inputs: [
      { name: "target", type: "address" },
      { name: "value", type: "uint256" },
      { name: "data", type: "bytes" },
    ],
    outputs: [],
  },
  {
    type: "function",
    name: "executeBatch",
    stateMutability: "payable",
    inputs: [
      {
        name: "calls",
        type: "tuple[]",
        components: [
          { name: "target", type: "address" },
          { name: "value", type: "uint256" },
          { name: "data", type: "bytes" },
        ],
      },
    ],
    outputs: [],
  },
] as const;

const rejected = (code: number, message: string) => new UserOperationRejected(code, message);

/** The calls of the wallet's `execute` or `executeBatch`, the only entries the sandbox's wallets run. */
function walletCalls(callData: Hex): BatchCall[] {
  try {
    const call = decodeFunctionData({ abi: walletAbi, data: callData });
    return call.functionName === "execute"
      ? [{ to: call.args[0], value: call.args[1], data: call.args[2] }]
      : call.args[0].map((c) => ({ to: c.target, value: c.value, data: c.data }));
  } catch {
    throw rejected(
      REJECTION.invalidFields,
      "callData must call the smart wallet's execute(address,uint256,bytes) or executeBatch((address,uint256,bytes)[]); the sandbox runs no other entry",
    );
  }
}

/** The sender's owners, and whether this operation deploys it (initCode / factory), as validation settles them. */
function senderOf(ctx: EntryPointContext, op: UserOperationFields): { owners: string[]; deploys: boolean } {
  const deployed = isWalletDeployed(ctx.store, ctx.network, op.sender);
  if (op.factory) {
    if (deployed) throw rejected(REJECTION.byEntryPoint, `AA10 sender already constructed: ${op.sender} is deployed on ${ctx.network}; leave its initCode out`);
    const created = walletCreatedBy(op.factory, op.factoryData ?? "0x");
    if ("error" in created) throw rejected(REJECTION.byEntryPoint, `AA13 initCode failed or OOG: ${created.error}`);
    if (created.address.toLowerCase() !== op.sender.toLowerCase())
      throw rejected(
        REJECTION.byEntryPoint,
        `AA14 initCode must return sender: createAccount on ${op.factory} gives ${created.address}, not ${op.sender} (the sandbox's wallet addresses are what the factory's getAddress answers on this node)`,
      );
    return { owners: created.owners, deploys: true };
  }
  const owners = smartWalletOwners(ctx.store, op.sender);
  if (!owners)
    throw rejected(
      REJECTION.byEntryPoint,
      `AA20 account not deployed: ${op.sender} is no smart wallet of this project on ${ctx.network}; give initCode (factory and factoryData) calling createAccount(owners, nonce), or create the account with the platform API`,
    );
  return { owners, deploys: false };
}

/** Whether the sandbox's paymaster sponsors the operation (paymaster.ts); any other paymaster cannot be run. */
function sponsoredBy(op: UserOperationFields): boolean {
  const decided = paymasterOf(op.paymaster);
  if ("refused" in decided) throw rejected(REJECTION.byEntryPoint, decided.refused);
  return decided.sponsored;
}

/** The low 64 bits of a nonce: the sequence number within its key. */
const SEQUENCE = 2n ** 64n - 1n;

function checkNonce(ctx: EntryPointContext, version: EntryPointVersion, op: UserOperationFields) {
  const key = op.nonce >> 64n;
  const expected = entryPointNonce(ctx, version, op.sender, key);
  if (op.nonce !== expected)
    throw rejected(
      REJECTION.byEntryPoint,
      `AA25 invalid account nonce: the next nonce of ${op.sender} for key ${key} has sequence ${expected & SEQUENCE}, not ${op.nonce & SEQUENCE}`,
    );
}

/** The most the operation may cost its sender: every gas limit at maxFeePerGas (v0.6 triples verification gas with a paymaster). */
function requiredPrefund(version: EntryPointVersion, op: UserOperationFields): bigint {
  const paymasterGas = (op.paymasterVerificationGasLimit ?? 0n) + (op.paymasterPostOpGasLimit ?? 0n);
  const verification = version === "0.6" && op.paymaster ? op.verificationGasLimit * 3n : op.verificationGasLimit;
  return (op.callGasLimit + verification + op.preVerificationGas + paymasterGas) * op.maxFeePerGas;
}

/**
 * The gas a user operation needs, found by running it on the ledger and undoing it, as a bundler simulates
 * it: the calls share the node's call gas cap as `eth_estimateGas`'s run does; then their gas with headroom, a
 * fixed verification allowance (more when the operation deploys its wallet).
 * The signature is not checked (clients estimate with a stub); a revert is error -32521.
 *
 * @example estimateGas(ctx, "0.6", op) // { callGasLimit: 72_400n, verificationGasLimit: 120_000n, … }
 */
export async function estimateGas(ctx: EntryPointContext, version: EntryPointVersion, op: UserOperationFields) {
  const { deploys } = senderOf(ctx, op);
  checkNonce(ctx, version, op);
  const sponsored = sponsoredBy(op);
  const calls = walletCalls(op.callData);
  const undo = ctx.store.savepoint();
  try {
    const hash = userOperationHash(version, ctx.chainId, op);
    const run = await executeBatch(ctx.store, ctx.clock, ctx.contracts, {
      network: ctx.network,
      from: op.sender,
      calls,
      operationHash: hash,
      sponsored: true,
      shortfallReverts: true,
      gasLimit: CALL_GAS_CAP,
    });
    if (run.status === "reverted") throw rejected(REJECTION.reverted, `execution reverted: ${run.revertReason}`);
    return {
      preVerificationGas: 50_000n,
      verificationGasLimit: deploys ? 450_000n : 120_000n,
      callGasLimit: run.gasUsed + run.gasUsed / 5n + 10_000n,
      ...(version === "0.7" && sponsored ? { paymasterVerificationGasLimit: PAYMASTER_VERIFICATION_GAS, paymasterPostOpGasLimit: 0n } : {}),
    };
  } finally {
    undo();
  }
}

/**
 * Validates the operation as the EntryPoint does and, once it passes, runs it: deploys the wallet when its
 * initCode asks, uses the nonce, executes the calls and records the operation. A refused operation changes
 * nothing. Returns the userOpHash.
 *
 * @example handleOperation(ctx, "0.6", op) // "0x…" (the userOpHash)
 */
export async function handleOperation(ctx: EntryPointContext, version: EntryPointVersion, op: UserOperationFields): Promise<Hex> {
  if (op.maxFeePerGas < GAS_PRICE_WEI)
    throw rejected(REJECTION.invalidFields, `maxFeePerGas ${op.maxFeePerGas} is below the base fee of ${ctx.network} (${GAS_PRICE_WEI} wei)`);
  if (op.maxPriorityFeePerGas > op.maxFeePerGas) throw rejected(REJECTION.invalidFields, "maxPriorityFeePerGas must not exceed maxFeePerGas");
  const overGas = userOperationGasRefusal([
    op.callGasLimit,
    op.verificationGasLimit,
    op.preVerificationGas,
    op.paymasterVerificationGasLimit ?? 0n,
    op.paymasterPostOpGasLimit ?? 0n,
  ]);
  if (overGas) throw rejected(REJECTION.invalidFields, `the operation's ${overGas}`);
  const sender = senderOf(ctx, op);
  checkNonce(ctx, version, op);
  const sponsored = sponsoredBy(op);
  const calls = walletCalls(op.callData);
  if (!sponsored) {
    const held = balanceOf(ctx.store, ctx.network, NATIVE_TOKEN_ADDRESS, op.sender);
    const prefund = requiredPrefund(version, op);
    if (held < prefund)
      throw rejected(
        REJECTION.byEntryPoint,
        `AA21 didn't pay prefund: ${op.sender} holds ${held} wei on ${ctx.network} and the operation may cost ${prefund} (its gas limits at maxFeePerGas); fund it or name the sandbox's paymaster ${SANDBOX_PAYMASTER}`,
      );
  }
  const userOpHash = userOperationHash(version, ctx.chainId, op);
  if (!isOwnerSignature({ owners: sender.owners, hash: userOpHash, signature: op.signature }))
    throw rejected(
      REJECTION.signature,
      `AA24 signature error: the signature is not an owner of ${op.sender} signing the userOpHash ${userOpHash}, wrapped as SignatureWrapper(ownerIndex, signatureData)`,
    );

  const undo = ctx.store.savepoint();
  try {
    // A platform smart account needs no initCode: like a platform user operation, its first one deploys it.
    recordDeployment(ctx.store, ctx.clock, ctx.network, op.sender, sender.owners);
    const key = op.nonce >> 64n;
    ctx.store.collection(NONCES).put(nonceKey(ctx, version, op.sender, key), { sequence: String((op.nonce & SEQUENCE) + 1n) });
    const run = await executeBatch(ctx.store, ctx.clock, ctx.contracts, {
      network: ctx.network,
      from: op.sender,
      calls,
      operationHash: userOpHash,
      sponsored,
      shortfallReverts: true,
      // The EntryPoint calls the wallet with callGasLimit, and the wallet gives each call what is left of it.
      gasLimit: op.callGasLimit,
    });
    bundled(ctx.store).put(userOpHash, {
      userOpHash,
      network: ctx.network,
      entryPoint: ENTRY_POINTS[version],
      sender: op.sender,
      nonce: op.nonce.toString(),
      ...(op.paymaster ? { paymaster: op.paymaster } : {}),
      userOperation: userOperationRpc(version, op),
      transactionHash: run.transactionHash,
      block: run.block,
      success: run.status === "success",
      ...(run.revertReason ? { reason: run.revertReason } : {}),
      actualGasUsed: run.gasUsed.toString(),
      actualGasCost: (run.gasUsed * GAS_PRICE_WEI).toString(),
      logs: run.logs,
    });
    return userOpHash;
  } catch (error) {
    undo();
    throw error;
  }
}

/** The operation the bundler included under `userOpHash` on this network; undefined when none was. */
export function bundledOperation(ctx: EntryPointContext, userOpHash: string): BundledOperation | undefined {
  const op = bundled(ctx.store).get(userOpHash.toLowerCase()) ?? bundled(ctx.store).get(userOpHash);
  return op && op.network === ctx.network ? op : undefined;
}

const getNonceAbi = [
  {
    type: "function",
    name: "getNonce",
    stateMutability: "view",
    inputs: [
      { name: "sender", type: "address" },
      { name: "key", type: "uint192" },
    ],
    outputs: [{ name: "nonce", type: "uint256" }],
  },
] as const;

/** `getNonce(sender, key)` of an EntryPoint, as `eth_call` answers it; undefined for any other call. */
export function entryPointRead(ctx: EntryPointContext, to: string, data: Hex): Hex | undefined {
  const version = (Object.keys(ENTRY_POINTS) as EntryPointVersion[]).find((v) => ENTRY_POINTS[v].toLowerCase() === to.toLowerCase());
  if (!version) return undefined;
  try {
    const { args } = decodeFunctionData({ abi: getNonceAbi, data });
    return encodeAbiParameters([{ type: "uint256" }], [entryPointNonce(ctx, version, args[0], args[1])]);
  } catch {
    return undefined;
  }
}
