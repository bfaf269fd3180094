/**
 * Sandbox-only money movements, so tests can set balances:
 * POST /_sandbox/accounts/{accountId}/fund, scoped to the bearer token's
 * project (else the default project). Each is one all-or-nothing store
 * transaction, like a platform request.
 */
import type { Clock } from "../clock.js";
import { fundAccount } from "../domains/accounts/funding.js";
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
