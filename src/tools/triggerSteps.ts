/**
 * The steps `trigger`'s flows are made of: calls of the platform API as the
 * project's client (or anonymously, as a browser or wallet), of the admin API
 * (money, the clock), and the few sequences several flows share.
 */
import { serializeTransaction } from "viem";
import { type Json, type ProjectKeys, RefusedError, type SandboxClient } from "./client.js";

/** What a flow works with: the sandbox, the project's keys, and what it tells the user along the way. */
export interface FlowContext {
  client: SandboxClient;
  keys: ProjectKeys;
  say(line: string): void;
}

export interface Trigger {
  /** The event types the flow produces, in the order it produces them. */
  eventTypes: string[];
  /** What it does, for `trigger --list`. */
  does: string;
  /** `eventType` is the one asked for (the activity flow matches the labels of its subscriptions). */
  run(f: FlowContext, eventType: string): Promise<void>;
}

export const USDC_BASE_SEPOLIA = "0x036CbD53842c5426634e7929541eC2318f3dCF7e";

export const platform = (f: FlowContext, method: string, path: string, body?: unknown): Promise<Json> => f.client.platformOk(f.keys, method, path, { body });
export const admin = (f: FlowContext, method: string, path: string, body?: unknown): Promise<Json> =>
  f.client.adminOk(method, path, { body, project: f.keys.projectId });

export async function anonymous(f: FlowContext, method: string, path: string, body?: unknown): Promise<Json> {
  const answer = await f.client.anonymous(method, path, body);
  if (answer.status >= 300) throw new RefusedError(`${method} /platform${path}`, answer);
  return answer.body;
}

/** Moves the sandbox clock, then makes one request of the project so what became due is noticed (and announced). */
export async function advance(f: FlowContext, duration: string): Promise<void> {
  await admin(f, "POST", "/clock", { advance: duration });
  await platform(f, "GET", "/v2/data/webhooks/subscriptions?pageSize=1");
  f.say(`moved the sandbox clock by ${duration}`);
}

export const nowIso = async (f: FlowContext): Promise<string> => (await admin(f, "GET", "/clock")).now;

/**
 * Runs `steps` with the sandbox clock held still, so an action a flow makes land late (after a deadline, after the
 * funds moved) lands exactly when the flow says, however long the requests take; a clock that was running runs again
 * afterwards, from where the flow left it.
 */
export async function withClockHeld(f: FlowContext, steps: () => Promise<void>): Promise<void> {
  const wasFrozen = (await admin(f, "GET", "/clock")).frozen === true;
  if (!wasFrozen) await admin(f, "POST", "/clock", { freeze: true });
  try {
    await steps();
  } finally {
    if (!wasFrozen) await admin(f, "POST", "/clock", { freeze: false });
  }
}

/** A new custodial account of the project holding `usdc`. */
export async function fundedAccount(f: FlowContext, name: string, usdc: string): Promise<string> {
  const accountId = (await platform(f, "POST", "/v2/accounts", { name })).accountId as string;
  if (usdc !== "0") await admin(f, "POST", `/accounts/${accountId}/fund`, { asset: "usdc", amount: usdc });
  return accountId;
}

/** A new account of the project on the ledger, with ETH for gas on `network`. */
export async function evmAccountWithGas(f: FlowContext, network: string): Promise<`0x${string}`> {
  const address = (await platform(f, "POST", "/v2/evm/accounts", {})).address as `0x${string}`;
  await admin(f, "POST", "/balances", { network, address, amount: "10000000000000000" }); // 0.01 ETH
  return address;
}

/** A transaction sent by one of the project's EVM accounts (signed by the sandbox, executed at once, mined next block). */
export const sendTx = (f: FlowContext, address: string, network: string, tx: Parameters<typeof serializeTransaction>[0]): Promise<Json> =>
  platform(f, "POST", `/v2/evm/accounts/${address}/send/transaction`, { network, transaction: serializeTransaction(tx) });
