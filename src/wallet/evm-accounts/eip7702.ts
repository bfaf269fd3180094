/**
 * EIP-7702 delegation: the account signs an authorization that points its
 * code at the smart-wallet implementation, carried by a type-4 transaction.
 * The operation is SUBMITTED at once and COMPLETED one sandbox-second later,
 * so clients that poll see the platform's sequence, and a frozen clock holds it.
 * Once COMPLETED on a network, the account acts there as a smart account for
 * user operations (evm-smart-accounts/userOperations.ts): its own key signs
 * them and the calls run from its address.
 */
import { keccak256 } from "viem";
import { evmAccountOf } from "../../crypto/evm.js";
import { apiError } from "../../errors/catalogue.js";
import { chainIdOf, nextNonce, setNextNonce } from "../../chain/evm/index.js";
import type { Schema } from "../../contract/types.js";
import { declareCollection } from "../../store/collections.js";
import type { Handler, HandlerContext } from "../types.js";
import { findEvmAccount } from "../records/evmAccounts.js";

/** The Coinbase Smart Wallet implementation an account delegates to (sandbox constant, same on every network). */
export const DELEGATE_ADDRESS = "0x000100abaad02f1cfC8Bbe32bD5a564817339E72" as const;
const COMPLETES_AFTER_MS = 1000;

type DelegationNetwork = Schema<"EvmEip7702DelegationNetwork">;

interface DelegationOperation {
  delegationOperationId: string;
  address: `0x${string}`;
  network: DelegationNetwork;
  transactionHash: `0x${string}`;
  createdAtMs: number;
  enableSpendPermissions: boolean;
}

const EIP7702_DELEGATIONS = declareCollection<DelegationOperation>("eip7702Delegations");

export const createEvmEip7702Delegation: Handler<"createEvmEip7702Delegation"> = async (req, ctx) => {
  const record = findEvmAccount(ctx.store, req.pathParams.address);
  const id = await startEip7702Delegation(ctx, record, req.body.network, req.body.enableSpendPermissions === true);
  return { status: 201, body: { delegationOperationId: id } };
};

/** Signs the authorization and its type-4 transaction for `record`; returns the operation id. */
export async function startEip7702Delegation(
  ctx: HandlerContext,
  record: { address: `0x${string}`; privateKey: `0x${string}` },
  network: DelegationNetwork,
  enableSpendPermissions: boolean,
): Promise<string> {
  const chainId = chainIdOf(network)!;
  const account = evmAccountOf(record.privateKey);
  const nonce = nextNonce(ctx.store, network, record.address);
  // The account sends its own type-4 transaction, so the authorization uses the next nonce after it.
  const authorization = await account.signAuthorization({ address: DELEGATE_ADDRESS, chainId, nonce: nonce + 1 });
  const signed = await account.signTransaction({
    type: "eip7702",
    chainId,
    nonce,
    to: record.address,
    gas: 100_000n,
    maxFeePerGas: 2_000_000_000n,
    maxPriorityFeePerGas: 100_000_000n,
    authorizationList: [authorization],
  });
  setNextNonce(ctx.store, network, record.address, nonce + 1);
  const operation: DelegationOperation = {
    delegationOperationId: ctx.random.uuid(),
    address: record.address,
    network,
    transactionHash: keccak256(signed),
    createdAtMs: ctx.clock.now(),
    enableSpendPermissions,
  };
  ctx.store.collection(EIP7702_DELEGATIONS).insert(operation.delegationOperationId, operation);
  return operation.delegationOperationId;
}

const isCompleted = (operation: DelegationOperation, nowMs: number) => nowMs - operation.createdAtMs >= COMPLETES_AFTER_MS;

/**
 * Whether `address` has a completed delegation on `network` (on any network when none is named).
 *
 * @example isDelegated(ctx, "0xabc…", "base-sepolia")
 */
export function isDelegated(ctx: Pick<HandlerContext, "store" | "clock">, address: string, network?: string): boolean {
  const key = address.toLowerCase();
  const now = ctx.clock.now();
  return ctx.store
    .collection(EIP7702_DELEGATIONS)
    .filter((o) => o.address.toLowerCase() === key && (network === undefined || o.network === network))
    .some((o) => isCompleted(o, now));
}

/** The delegation operation `id` of the project with the account it delegates, or 404. */
export function findDelegationOperation(ctx: Pick<HandlerContext, "store" | "clock">, id: string) {
  const operation = ctx.store.collection(EIP7702_DELEGATIONS).get(id);
  if (!operation) throw apiError("not_found", `Delegation operation ${id} was not found in this project.`);
  const done = isCompleted(operation, ctx.clock.now());
  const view: Schema<"EvmEip7702DelegationOperation"> = {
    delegationOperationId: operation.delegationOperationId,
    status: done ? "COMPLETED" : "SUBMITTED",
    transactionHash: operation.transactionHash,
    network: operation.network,
    delegateAddress: DELEGATE_ADDRESS,
  };
  return { address: operation.address, view };
}

export const getEvmEip7702DelegationOperationById: Handler<"getEvmEip7702DelegationOperationById"> = (req, ctx) => ({
  status: 200,
  body: findDelegationOperation(ctx, req.pathParams.delegationOperationId).view,
});
