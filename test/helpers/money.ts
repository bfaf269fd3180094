/**
 * Helpers for the custodial money tests: open accounts, fund them through the
 * sandbox-only endpoint, read a balance as numbers.
 */
import type { Sandbox } from "cdp-sandbox";
import { call, type Credentials } from "./sandbox.js";

export const P = "/platform/v2";

export async function openAccount(sandbox: Sandbox, body: Record<string, unknown> = {}, credentials?: Credentials): Promise<string> {
  const res = await call(sandbox, "POST", `${P}/accounts`, { body, credentials });
  if (res.status !== 200) throw new Error(`account creation failed: ${res.status} ${res.text}`);
  return res.body.accountId as string;
}

export async function fundAccount(sandbox: Sandbox, accountId: string, asset: string, amount: string, credentials?: Credentials) {
  const res = await call(sandbox, "POST", `/_sandbox/accounts/${accountId}/fund`, { body: { asset, amount }, credentials });
  if (res.status !== 200) throw new Error(`funding failed: ${res.status} ${res.text}`);
  return res.body;
}

/** { available, total } of one asset, as the API shows them. */
export async function balanceOf(sandbox: Sandbox, accountId: string, asset: string, credentials?: Credentials): Promise<{ available: string; total: string }> {
  const res = await call(sandbox, "GET", `${P}/accounts/${accountId}/balances/${asset}`, { credentials });
  if (res.status !== 200) throw new Error(`balance read failed: ${res.status} ${res.text}`);
  return res.body.amount[asset];
}

export async function advance(sandbox: Sandbox, duration: string) {
  const res = await call(sandbox, "POST", "/_sandbox/clock", { body: { advance: duration }, anonymous: true });
  if (res.status !== 200) throw new Error(`clock advance failed: ${res.status} ${res.text}`);
}
