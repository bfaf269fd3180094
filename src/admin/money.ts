/**
 * Sandbox-only money movements, so tests can set balances and play deposits:
 * POST /_sandbox/accounts/{accountId}/fund and
 * POST /_sandbox/deposit-destinations/{id}/deposit, scoped to the bearer
 * token's project (else the default project). Each is one all-or-nothing
 * store transaction, like a platform request.
 */
import type { Clock } from "../clock.js";
import { fundAccount } from "../domains/accounts/funding.js";
import { simulateDeposit, type DepositInput } from "../domains/deposit-destinations/deposit.js";
import type { Random } from "../random.js";
import type { Store } from "../store/store.js";

interface MoneyDeps {
  store: Store;
  clock: Clock;
  random: Random;
}

export async function fundAccountInProject(deps: MoneyDeps, projectId: string, accountId: string, body: Record<string, unknown>) {
  const tx = deps.store.begin(projectId);
  const balance = fundAccount(tx, accountId, body);
  await tx.commit();
  return { status: 200, body: balance };
}

export async function depositInProject(deps: MoneyDeps, projectId: string, depositDestinationId: string, body: DepositInput) {
  const tx = deps.store.begin(projectId);
  const transfer = simulateDeposit({ store: tx, clock: deps.clock, random: deps.random }, depositDestinationId, body);
  await tx.commit();
  return { status: 201, body: transfer };
}
