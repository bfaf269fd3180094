/**
 * The parameters of the node's methods, read as geth, Anvil and Hardhat read them: positional, addresses as 0x plus
 * 40 hex digits, hashes as 0x plus 64, numbers as hex quantities (or plain JSON numbers, which Hardhat's scripts
 * send), blocks as a tag, a number or EIP-1898's object. A wrong one is error -32602 naming the method, the
 * position and what was expected; nothing has changed at that point.
 */
import { RpcError } from "../jsonRpc.js";

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const QUANTITY = /^0x[0-9a-fA-F]{1,64}$/;
const DATA = /^0x(?:[0-9a-fA-F]{2})*$/;
const HASH = /^0x[0-9a-fA-F]{64}$/;
const TAGS = new Set(["latest", "pending", "safe", "finalized", "earliest"]);

const invalid = (method: string, index: number, expected: string, got: unknown) =>
  new RpcError(-32602, `invalid params of ${method}: params[${index}] must be ${expected}, got ${JSON.stringify(got) ?? "nothing"}`);

export function addressParam(method: string, params: unknown[], index: number): `0x${string}` {
  const value = params[index];
  if (typeof value !== "string" || !ADDRESS.test(value)) throw invalid(method, index, "a 0x-prefixed 20-byte address", value);
  return value as `0x${string}`;
}

/** A hex quantity (or a safe non-negative JSON integer) as a bigint. */
export function quantityParam(method: string, params: unknown[], index: number, expected = "a hex quantity such as 0x1"): bigint {
  const value = params[index];
  if (typeof value === "number" && Number.isSafeInteger(value) && value >= 0) return BigInt(value);
  if (typeof value !== "string" || !QUANTITY.test(value)) throw invalid(method, index, expected, value);
  return BigInt(value);
}

/** A quantity that must fit a small count (blocks, seconds): below `max`. */
export function countParam(method: string, params: unknown[], index: number, max: number, what: string): number {
  const value = quantityParam(method, params, index, `${what} as a hex quantity`);
  if (value > BigInt(max)) throw invalid(method, index, `${what} of at most ${max}`, params[index]);
  return Number(value);
}

export function dataParam(method: string, params: unknown[], index: number, expected = "0x-prefixed hex bytes"): `0x${string}` {
  const value = params[index];
  if (typeof value !== "string" || !DATA.test(value)) throw invalid(method, index, expected, value);
  return value as `0x${string}`;
}

/** A 32-byte word: 0x and up to 64 hex digits, as storage values are given. */
export function wordParam(method: string, params: unknown[], index: number): `0x${string}` {
  const value = params[index];
  if (typeof value !== "string" || !/^0x[0-9a-fA-F]{1,64}$/.test(value)) throw invalid(method, index, "a 32-byte hex word (0x and up to 64 hex digits)", value);
  return `0x${value.slice(2).padStart(64, "0")}`;
}

export function booleanParam(method: string, params: unknown[], index: number): boolean {
  const value = params[index];
  if (typeof value !== "boolean") throw invalid(method, index, "true or false", value);
  return value;
}

export function stringParam(method: string, params: unknown[], index: number, expected: string): string {
  const value = params[index];
  if (typeof value !== "string" || value === "") throw invalid(method, index, expected, value);
  return value;
}

/** A 32-byte hash: a transaction's, a block's, a user operation's. */
export function hashParam(method: string, params: unknown[], index: number): `0x${string}` {
  const value = params[index];
  if (typeof value !== "string" || !HASH.test(value)) throw invalid(method, index, "a 0x-prefixed 32-byte hash", value);
  return value as `0x${string}`;
}

/** A block: a tag, a hex number, or EIP-1898's `{ blockNumber }` / `{ blockHash, requireCanonical? }`. */
export function blockParam(method: string, params: unknown[], index: number): void {
  const value = params[index];
  if (typeof value === "string" && (TAGS.has(value) || QUANTITY.test(value))) return;
  if (typeof value === "object" && value !== null && !Array.isArray(value)) {
    const { blockNumber, blockHash, requireCanonical } = value as Record<string, unknown>;
    if (blockHash === undefined && typeof blockNumber === "string" && (TAGS.has(blockNumber) || QUANTITY.test(blockNumber))) return;
    if (
      blockNumber === undefined &&
      typeof blockHash === "string" &&
      HASH.test(blockHash) &&
      (requireCanonical === undefined || typeof requireCanonical === "boolean")
    )
      return;
  }
  throw invalid(method, index, "a block: a tag (latest, pending, safe, finalized, earliest), a hex number or { blockNumber } / { blockHash }", value);
}
