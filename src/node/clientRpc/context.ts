/**
 * What a client-side `cdp_` method reads: the EVM node's context (network, the caller's project in the call's
 * transaction, the clock) and a source of ids for what it creates (swap quotes, charges). Parameters arrive as
 * OnchainKit sends them: one object in `params[0]`; what is wrong with them is error -32602, and nothing is
 * written before they are all checked.
 */
import type { Random } from "../../random.js";
import type { EvmNodeContext } from "../evm/context.js";
import { RpcError } from "../jsonRpc.js";

export interface ClientRpcContext extends EvmNodeContext {
  random: Random;
  /** A read of a contract as the node's `eth_call` answers it (the NFT methods read contracts through it). */
  ethCall: EthCall;
}

/** `eth_call` of `data` to `to` on the context's network: the returned data, or a thrown RpcError when it reverts. */
export type EthCall = (ctx: EvmNodeContext, to: `0x${string}`, data: `0x${string}`) => unknown;

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

export const invalidParams = (message: string) => new RpcError(-32602, `invalid params: ${message}`);

/** `params[0]` as an object, or -32602. */
export function paramObject(params: unknown[]): Record<string, unknown> {
  const first = params[0];
  if (!first || typeof first !== "object" || Array.isArray(first)) throw invalidParams("params[0] must be an object");
  return first as Record<string, unknown>;
}

export function addressField(source: Record<string, unknown>, field: string): `0x${string}` {
  const value = source[field];
  if (typeof value !== "string" || !ADDRESS.test(value)) throw invalidParams(`${field} must be a 0x-prefixed 20-byte address`);
  return value as `0x${string}`;
}

export function optionalString(source: Record<string, unknown>, field: string): string | undefined {
  const value = source[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string") throw invalidParams(`${field} must be a string`);
  return value;
}

export const isAddress = (value: unknown): value is `0x${string}` => typeof value === "string" && ADDRESS.test(value);
