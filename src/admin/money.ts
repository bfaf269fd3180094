/**
 * Sandbox-only money movements, so tests can set balances and play deposits:
 * POST /_sandbox/accounts/{accountId}/fund and
 * POST /_sandbox/deposit-destinations/{id}/deposit, scoped to the bearer
 * token's project (else the default project). Each is one all-or-nothing
 * store transaction, like a platform request.
 */
import type { Clock } from "../clock.js";
import { fundAccount } from "../products/accounts/funding.js";
import { simulateDeposit, type DepositInput } from "../products/deposit-destinations/deposit.js";
import type { Random } from "../random.js";
import type { Store } from "../store/store.js";
import { type AdminHandler, callerProject, locking } from "./types.js";

interface MoneyDeps {
  store: Store;
  clock: Clock;
  random: Random;
}

async function fundAccountInProject(deps: MoneyDeps, projectId: string, accountId: string, body: Record<string, unknown>) {
  const tx = deps.store.begin(projectId);
  const balance = fundAccount(tx, accountId, body);
  await tx.commit();
  return balance;
}

async function depositInProject(deps: MoneyDeps, projectId: string, depositDestinationId: string, body: DepositInput) {
  const tx = deps.store.begin(projectId);
  const transfer = simulateDeposit({ store: tx, clock: deps.clock, random: deps.random }, depositDestinationId, body);
  await tx.commit();
  return transfer;
}

export const fundSandboxAccount: AdminHandler<"fundSandboxAccount"> = locking("project", async (call, ctx) => {
  const money = { store: ctx.store, clock: ctx.clock, random: ctx.random.money };
  return { status: 200, body: await fundAccountInProject(money, callerProject(call, ctx), call.pathParams.accountId, call.body) };
});

export const simulateSandboxDeposit: AdminHandler<"simulateSandboxDeposit"> = locking("project", async (call, ctx) => {
  const money = { store: ctx.store, clock: ctx.clock, random: ctx.random.money };
  const transfer = await depositInProject(money, callerProject(call, ctx), call.pathParams.depositDestinationId, call.body);
  // A deposit settles at once or waits for its travel-rule details; the platform's Transfer schema leaves both fields open.
  return { status: 201, body: { ...transfer, transferId: transfer.transferId!, status: transfer.status as "processing" | "completed" } };
});
