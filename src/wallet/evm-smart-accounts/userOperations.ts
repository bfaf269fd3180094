/**
 * User operations of smart accounts: prepared (status pending, with a hash
 * the owner signs), sent with the owner's signature over that hash
 * (broadcast), then complete once the block that includes them is reached on
 * the sandbox clock. Calls execute on the ledger from the smart account, gas
 * paid by the paymaster. Project policies apply to prepareUserOperation and
 * sendUserOperation.
 *
 * An EVM account of the project whose EIP-7702 delegation completed on a
 * network is a smart account there too: it is its own owner (its key signs),
 * the calls run from its address, and its ETH pays the gas unless the request
 * names a paymaster.
 */
import { encodeAbiParameters, keccak256, recoverAddress, type Hex } from "viem";
import { chainIdOf, ledgerTxs, userOperationGasRefusal } from "../../chain/evm/index.js";
import { headBlock } from "../../chain/index.js";
import type { Schema } from "../../contract/types.js";
import { evmAccountOf } from "../../crypto/evm.js";
import { apiError } from "../../errors/catalogue.js";
import { declareCollection } from "../../store/collections.js";
import { isDelegated } from "../evm-accounts/eip7702.js";
import { evmAccounts } from "../records/evmAccounts.js";
import { enforcePolicies } from "../policies/evaluate.js";
import type { Handler, HandlerContext } from "../types.js";
import { findSmartAccount, smartAccounts, type SmartAccountRecord } from "./accounts.js";
import { executeBatch } from "./batch.js";
import { paymasterRequested, sponsoredFor } from "./paymaster.js";
import { recordDeployment } from "./smartWalletFactory.js";

/** How long a prepared operation may wait for its signature. */
const PREPARED_LIFETIME_MS = 15 * 60 * 1000;

/** One call of a user operation, as the contract gives it. */
export type Call = Schema<"EvmCall">;
export type UserOperationNetwork = Schema<"EvmUserOperationNetwork">;

interface UserOperationRecord {
  userOpHash: Hex;
  smartAccount: `0x${string}`;
  network: UserOperationNetwork;
  calls: Call[];
  status: "pending" | "broadcast" | "failed";
  preparedAtMs: number;
  expiresAtMs: number;
  transactionHash?: Hex;
  block?: number;
  /** False when the account pays its own gas (a delegated EOA without a paymaster); absent means sponsored. */
  sponsored?: boolean;
}

export const USER_OPERATIONS = declareCollection<UserOperationRecord>("userOperations");

const operations = (ctx: HandlerContext) => ctx.store.collection(USER_OPERATIONS);

const policyFacts = (calls: Call[], network: string) => ({
  kind: "evmTransaction" as const,
  network,
  // The contract's patterns checked the address and the hex: they are the template types viem takes.
  calls: calls.map((c) => ({ to: c.to as `0x${string}`, value: BigInt(c.value || "0"), data: c.data as Hex })),
});

/** A smart account as user operations need it (project smart accounts, end users' and delegated EOAs alike). */
export type OperatingAccount = Pick<SmartAccountRecord, "address" | "owners" | "policies"> & {
  /** An EOA with an EIP-7702 delegation: its ETH pays for gas unless a paymaster sponsors it. */
  delegated?: boolean;
};

/**
 * The account user operations at `address` run from: the project's smart account, or the project's EVM account
 * delegated (EIP-7702) on `network` (on any network when none is named), which is its own owner.
 */
function findOperatingAccount(ctx: HandlerContext, address: string, network?: string): OperatingAccount {
  const smart = smartAccounts(ctx.store).get(address.toLowerCase());
  if (smart) return smart;
  const eoa = evmAccounts(ctx.store).get(address.toLowerCase());
  if (eoa && isDelegated(ctx, eoa.address, network)) return { address: eoa.address, owners: [eoa.address], policies: eoa.policies, delegated: true };
  if (eoa)
    throw apiError(
      "not_found",
      `EVM smart account ${address} was not found in this project: it is an EVM account without a completed EIP-7702 delegation${network ? ` on ${network}` : ""}.`,
    );
  return findSmartAccount(ctx.store, address);
}

/** Policy operation names: the project's own, or the end-user variant. */
export interface PolicyOperations {
  prepare?: string;
  send?: string;
}
const PROJECT_OPERATIONS: PolicyOperations = { prepare: "prepareUserOperation", send: "sendUserOperation" };

export function prepare(
  ctx: HandlerContext,
  account: OperatingAccount,
  network: UserOperationNetwork,
  calls: Call[],
  policy: PolicyOperations = PROJECT_OPERATIONS,
  sponsored = true,
): UserOperationRecord {
  if (calls.length === 0) throw apiError("invalid_request", "calls must contain at least one call.");
  for (const [i, c] of calls.entries()) {
    if (!/^[0-9]+$/.test(c.value)) throw apiError("invalid_request", `calls[${i}].value must be a decimal amount of wei.`);
    if (c.overrideGasLimit !== undefined && !/^[0-9]{1,78}$/.test(c.overrideGasLimit))
      throw apiError("invalid_request", `calls[${i}].overrideGasLimit must be a decimal amount of gas.`);
  }
  // Each call runs with its own gas limit: together they may burn no more than a block holds, as a transaction.
  const refused = userOperationGasRefusal(calls.map(callGasLimit));
  if (refused) throw apiError("invalid_request", `The user operation's calls have ${refused}.`);
  if (policy.prepare) enforcePolicies(ctx.store, { operation: policy.prepare, accountPolicies: account.policies, facts: policyFacts(calls, network) });
  const nonce = operations(ctx).filter((o) => o.smartAccount === account.address).length;
  const userOpHash = keccak256(
    encodeAbiParameters(
      [{ type: "address" }, { type: "uint256" }, { type: "uint256" }, { type: "bytes32" }],
      [account.address, BigInt(chainIdOf(network) ?? 0), BigInt(nonce), keccak256(encodeAbiParameters([{ type: "string" }], [JSON.stringify(calls)]))],
    ),
  );
  const now = ctx.clock.now();
  const record: UserOperationRecord = {
    userOpHash,
    smartAccount: account.address,
    network,
    calls,
    status: "pending",
    preparedAtMs: now,
    expiresAtMs: now + PREPARED_LIFETIME_MS,
    ...(sponsored ? {} : { sponsored: false }),
  };
  operations(ctx).put(userOpHash, record);
  return record;
}

/** The gas a call runs with: its override, else the allowance a bundler's estimate would give it. */
const callGasLimit = (c: Call): bigint => BigInt(c.overrideGasLimit ?? "200000");

/** Checks the owner's signature and executes the calls on the ledger. */
export async function send(
  ctx: HandlerContext,
  account: OperatingAccount,
  op: UserOperationRecord,
  signature: Hex,
  policy: PolicyOperations = PROJECT_OPERATIONS,
): Promise<UserOperationRecord> {
  if (op.status !== "pending") throw apiError("invalid_request", `User operation ${op.userOpHash} was already sent (status ${op.status}).`);
  if (ctx.clock.now() > op.expiresAtMs) throw apiError("invalid_request", `User operation ${op.userOpHash} expired before it was signed; prepare it again.`);
  let signer: string;
  try {
    signer = await recoverAddress({ hash: op.userOpHash, signature });
  } catch {
    throw apiError("invalid_signature", "The signature is not a valid secp256k1 signature of userOpHash.");
  }
  if (!account.owners.some((o) => o.toLowerCase() === signer.toLowerCase())) {
    throw apiError("invalid_signature", `The signature over userOpHash is by ${signer}, not by the smart account's owner.`);
  }
  if (policy.send) enforcePolicies(ctx.store, { operation: policy.send, accountPolicies: account.policies, facts: policyFacts(op.calls, op.network) });
  const calls = op.calls.map((c) => ({
    to: c.to as `0x${string}`,
    value: BigInt(c.value),
    data: c.data as Hex,
    gas: callGasLimit(c),
  }));
  const { transactionHash, block } = await executeBatch(ctx.store, ctx.clock, ctx.contracts, {
    network: op.network,
    from: account.address,
    calls,
    operationHash: op.userOpHash,
    sponsored: op.sponsored !== false,
  });
  // A wallet's first operation deploys it (a delegated EOA has its code from the delegation).
  if (!account.delegated) recordDeployment(ctx.store, ctx.clock, op.network, account.address, account.owners);
  const sent: UserOperationRecord = {
    ...op,
    status: "broadcast",
    transactionHash,
    block,
  };
  operations(ctx).put(op.userOpHash, sent);
  return sent;
}

/** Operations sent and not yet included, across the project (the concurrency the platform limits). */
export function inFlightOperations(ctx: HandlerContext): number {
  return operations(ctx).filter((o) => o.status === "broadcast" && (o.block ?? 0) > headBlock(ctx.store, o.network, ctx.clock.now())).length;
}

/**
 * The answer to a send: `broadcast`, as the platform answers every accepted send, even when automine has
 * already included it (a later GET says `complete`). Programs that read the send's status see what they
 * would see in production; those that wait for the operation find it done at once.
 */
export function sentView(ctx: HandlerContext, op: UserOperationRecord): Schema<"EvmUserOperation"> {
  return view(ctx, op, true);
}

function view(ctx: HandlerContext, op: UserOperationRecord, asSent = false): Schema<"EvmUserOperation"> {
  const included = !asSent && op.status === "broadcast" && op.block !== undefined && op.block <= headBlock(ctx.store, op.network, ctx.clock.now());
  const reverted = included && ledgerTxs(ctx.store).get(op.transactionHash!)?.status === "reverted";
  const status = included ? (reverted ? "failed" : "complete") : op.status;
  return {
    network: op.network,
    userOpHash: op.userOpHash,
    calls: op.calls,
    status,
    ...(op.transactionHash ? { transactionHash: op.transactionHash } : {}),
    ...(included
      ? {
          receipts: [
            {
              transactionHash: op.transactionHash,
              blockNumber: op.block,
              gasUsed: "0",
              blockHash: keccak256(encodeAbiParameters([{ type: "string" }], [`${op.network}:${op.block}`])),
            },
          ],
        }
      : {}),
    expiresAt: new Date(op.expiresAtMs).toISOString(),
  };
}

function findOperation(ctx: HandlerContext, account: OperatingAccount, userOpHash: string): UserOperationRecord {
  const op = operations(ctx).get(userOpHash.toLowerCase()) ?? operations(ctx).get(userOpHash);
  if (!op || op.smartAccount !== account.address) throw apiError("not_found", `User operation ${userOpHash} of ${account.address} was not found.`);
  return op;
}

/**
 * User operation `userOpHash` of the account at `address`, as getUserOperation answers it, or undefined when the
 * account has none by that hash. `network` tells where it runs (an EIP-7702 account is a smart account per network).
 */
export function userOperationOf(
  ctx: HandlerContext,
  address: string,
  userOpHash: string,
): { network: string; view: () => Schema<"EvmUserOperation"> } | undefined {
  const op = operations(ctx).get(userOpHash.toLowerCase()) ?? operations(ctx).get(userOpHash);
  if (!op || op.smartAccount.toLowerCase() !== address.toLowerCase()) return undefined;
  return { network: op.network, view: () => view(ctx, op) };
}

export const prepareUserOperation: Handler<"prepareUserOperation"> = (req, ctx) => {
  const account = findOperatingAccount(ctx, req.pathParams.address, req.body.network);
  const sponsored = sponsoredFor(account, paymasterRequested(req.body));
  return { status: 201, body: view(ctx, prepare(ctx, account, req.body.network, req.body.calls, PROJECT_OPERATIONS, sponsored)) };
};

export const sendUserOperation: Handler<"sendUserOperation"> = async (req, ctx) => {
  const account = findOperatingAccount(ctx, req.pathParams.address);
  const op = findOperation(ctx, account, req.pathParams.userOpHash);
  return { status: 200, body: sentView(ctx, await send(ctx, account, op, req.body.signature as Hex)) };
};

export const getUserOperation: Handler<"getUserOperation"> = (req, ctx) => {
  const account = findOperatingAccount(ctx, req.pathParams.address);
  return { status: 200, body: view(ctx, findOperation(ctx, account, req.pathParams.userOpHash)) };
};

/**
 * Prepares and sends in one step for a smart account owned by an account of the project:
 * the sandbox signs with the owner's key (prepare-and-send, spend permissions).
 */
export async function prepareAndSendAsOwner(
  ctx: HandlerContext,
  account: OperatingAccount,
  network: UserOperationNetwork,
  calls: Call[],
  sponsored = true,
): Promise<UserOperationRecord> {
  const owner = account.owners.map((o) => evmAccounts(ctx.store).get(o.toLowerCase())).find((r) => r !== undefined);
  if (!owner)
    throw apiError(
      "invalid_request",
      `The owner of ${account.address} is not an account of this project, so the sandbox cannot sign for it; use prepare and send.`,
    );
  const op = prepare(ctx, account, network, calls, PROJECT_OPERATIONS, sponsored);
  const signature = await evmAccountOf(owner.privateKey).sign({ hash: op.userOpHash });
  return send(ctx, account, op, signature);
}

export const prepareAndSendUserOperation: Handler<"prepareAndSendUserOperation"> = async (req, ctx) => {
  const account = findOperatingAccount(ctx, req.pathParams.address, req.body.network);
  const sponsored = sponsoredFor(account, paymasterRequested(req.body));
  return { status: 200, body: sentView(ctx, await prepareAndSendAsOwner(ctx, account, req.body.network, req.body.calls, sponsored)) };
};
