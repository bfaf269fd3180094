/**
 * ERC-4337 user operations as bundlers take them over JSON-RPC, for EntryPoint
 * v0.6 (initCode, paymasterAndData) and v0.7 (factory and paymaster fields
 * apart): read into one shape, written back in the version's own form, and
 * hashed as the EntryPoint hashes them. A request a bundler would refuse is a
 * `UserOperationRejected` carrying the ERC-7769 error code.
 */
import { concat, getAddress, type Hex, isAddress, size, slice, toHex } from "viem";
import { entryPoint06Address, entryPoint07Address, getUserOperationHash } from "viem/account-abstraction";

export type EntryPointVersion = "0.6" | "0.7";

export const ENTRY_POINTS: Readonly<Record<EntryPointVersion, `0x${string}`>> = { "0.6": entryPoint06Address, "0.7": entryPoint07Address };

/** The version of the EntryPoint at `address`; undefined when the sandbox's bundler does not serve it. */
export function entryPointVersion(address: unknown): EntryPointVersion | undefined {
  if (typeof address !== "string") return undefined;
  const a = address.toLowerCase();
  return (Object.keys(ENTRY_POINTS) as EntryPointVersion[]).find((v) => ENTRY_POINTS[v].toLowerCase() === a);
}

/** The error codes bundlers answer with (ERC-7769). */
export const REJECTION = {
  invalidFields: -32602,
  /** Refused in validation: the message names the EntryPoint's AAxx reason. */
  byEntryPoint: -32500,
  signature: -32507,
  reverted: -32521,
} as const;

/** A user operation the sandbox's bundler refuses, with the bundler's error code. */
export class UserOperationRejected extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = "UserOperationRejected";
  }
}

export interface UserOperationFields {
  sender: `0x${string}`;
  nonce: bigint;
  factory?: `0x${string}`;
  factoryData?: Hex;
  callData: Hex;
  callGasLimit: bigint;
  verificationGasLimit: bigint;
  preVerificationGas: bigint;
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
  paymaster?: `0x${string}`;
  paymasterData?: Hex;
  paymasterVerificationGasLimit?: bigint;
  paymasterPostOpGasLimit?: bigint;
  signature: Hex;
}

const invalid = (message: string) => new UserOperationRejected(REJECTION.invalidFields, message);

/**
 * Reads a user operation of `version` from its JSON-RPC form. For a gas estimate, gas fields and the
 * signature may be missing (zero and empty), as clients send them before they know them.
 *
 * @example readUserOperation(params[0], "0.6", { estimate: false })
 */
export function readUserOperation(raw: unknown, version: EntryPointVersion, o: { estimate: boolean }): UserOperationFields {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) throw invalid("the user operation must be an object");
  const r = raw as Record<string, unknown>;
  const bytes = (field: string, fallback?: Hex): Hex => {
    const v = r[field] ?? fallback;
    if (typeof v !== "string" || !/^0x([0-9a-fA-F]{2})*$/.test(v)) throw invalid(`${field} must be 0x-prefixed hex bytes`);
    return v as Hex;
  };
  const quantity = (field: string, optional = o.estimate): bigint => {
    const v = r[field] ?? (optional ? "0x0" : undefined);
    if (typeof v !== "string" || !/^0x[0-9a-fA-F]{1,64}$/.test(v)) throw invalid(`${field} must be a hex quantity`);
    return BigInt(v);
  };
  const address = (field: string): `0x${string}` => {
    const v = r[field];
    if (typeof v !== "string" || !isAddress(v, { strict: false })) throw invalid(`${field} must be an address`);
    return getAddress(v);
  };
  const op: UserOperationFields = {
    sender: address("sender"),
    nonce: quantity("nonce", false),
    callData: bytes("callData"),
    callGasLimit: quantity("callGasLimit"),
    verificationGasLimit: quantity("verificationGasLimit"),
    preVerificationGas: quantity("preVerificationGas"),
    maxFeePerGas: quantity("maxFeePerGas"),
    maxPriorityFeePerGas: quantity("maxPriorityFeePerGas"),
    signature: bytes("signature", o.estimate ? "0x" : undefined),
  };
  if (version === "0.6") {
    const initCode = bytes("initCode", o.estimate ? "0x" : undefined);
    const paymasterAndData = bytes("paymasterAndData", o.estimate ? "0x" : undefined);
    if (size(initCode) > 0) {
      if (size(initCode) < 20) throw invalid("initCode must start with the factory's address");
      Object.assign(op, { factory: getAddress(slice(initCode, 0, 20)), factoryData: size(initCode) > 20 ? slice(initCode, 20) : "0x" });
    }
    if (size(paymasterAndData) > 0) {
      if (size(paymasterAndData) < 20) throw invalid("paymasterAndData must start with the paymaster's address");
      Object.assign(op, {
        paymaster: getAddress(slice(paymasterAndData, 0, 20)),
        paymasterData: size(paymasterAndData) > 20 ? slice(paymasterAndData, 20) : "0x",
      });
    }
    return op;
  }
  if (r.factory !== undefined && r.factory !== null) {
    if (typeof r.factory === "string" && r.factory.toLowerCase().startsWith("0x7702"))
      throw invalid("EIP-7702 user operations (factory 0x7702) are not served: the bundler takes EntryPoint v0.6 and v0.7 operations of smart wallets");
    Object.assign(op, { factory: address("factory"), factoryData: bytes("factoryData", "0x") });
  }
  if (r.paymaster !== undefined && r.paymaster !== null) {
    Object.assign(op, {
      paymaster: address("paymaster"),
      paymasterData: bytes("paymasterData", "0x"),
      paymasterVerificationGasLimit: quantity("paymasterVerificationGasLimit"),
      paymasterPostOpGasLimit: quantity("paymasterPostOpGasLimit"),
    });
  }
  return op;
}

// Bytes, so lowercase hex (the addresses in them lose their checksum casing, as on the wire).
const initCodeOf = (op: UserOperationFields): Hex => (op.factory ? (concat([op.factory, op.factoryData ?? "0x"]).toLowerCase() as Hex) : "0x");
const paymasterAndDataOf = (op: UserOperationFields): Hex => (op.paymaster ? (concat([op.paymaster, op.paymasterData ?? "0x"]).toLowerCase() as Hex) : "0x");

/** The user operation in the JSON-RPC form of its EntryPoint version (what eth_getUserOperationByHash answers). */
export function userOperationRpc(version: EntryPointVersion, op: UserOperationFields): Record<string, string> {
  const common = {
    sender: op.sender,
    nonce: toHex(op.nonce),
    callData: op.callData,
    callGasLimit: toHex(op.callGasLimit),
    verificationGasLimit: toHex(op.verificationGasLimit),
    preVerificationGas: toHex(op.preVerificationGas),
    maxFeePerGas: toHex(op.maxFeePerGas),
    maxPriorityFeePerGas: toHex(op.maxPriorityFeePerGas),
    signature: op.signature,
  };
  if (version === "0.6") return { ...common, initCode: initCodeOf(op), paymasterAndData: paymasterAndDataOf(op) };
  return {
    ...common,
    ...(op.factory ? { factory: op.factory, factoryData: op.factoryData ?? "0x" } : {}),
    ...(op.paymaster
      ? {
          paymaster: op.paymaster,
          paymasterData: op.paymasterData ?? "0x",
          paymasterVerificationGasLimit: toHex(op.paymasterVerificationGasLimit ?? 0n),
          paymasterPostOpGasLimit: toHex(op.paymasterPostOpGasLimit ?? 0n),
        }
      : {}),
  };
}

/** The userOpHash, as the EntryPoint of `version` computes it on chain `chainId`. */
export function userOperationHash(version: EntryPointVersion, chainId: number, op: UserOperationFields): Hex {
  const entryPointAddress = ENTRY_POINTS[version];
  if (version === "0.6")
    return getUserOperationHash({
      chainId,
      entryPointAddress,
      entryPointVersion: "0.6",
      userOperation: { ...op, initCode: initCodeOf(op), paymasterAndData: paymasterAndDataOf(op) },
    });
  return getUserOperationHash({ chainId, entryPointAddress, entryPointVersion: "0.7", userOperation: op });
}
