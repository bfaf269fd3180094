/**
 * GET /_sandbox/overview: where a project stands, in numbers that are cheap
 * to read. The dashboard polls it: a number that moved says which view to
 * reload.
 */
import { endUsers } from "../wallet/records/endUsers.js";
import { evmAccounts } from "../wallet/records/evmAccounts.js";
import { smartAccounts } from "../wallet/evm-smart-accounts/accounts.js";
import { onrampOrders } from "../products/onramp/model.js";
import { policies } from "../wallet/policies/model.js";
import { solanaAccounts } from "../wallet/records/solanaAccounts.js";
import { transfers } from "../products/transfers/model.js";
import { deliveries, subscriptions } from "../wallet/events/model.js";
import { apiError } from "../errors/catalogue.js";
import { chainsOf } from "./chain.js";
import { countOf } from "./paging.js";
import { type AdminHandler, callerProject } from "./types.js";

export const getSandboxOverview: AdminHandler<"getSandboxOverview"> = (call, ctx) => {
  const projectId = callerProject(call, ctx);
  if (!ctx.store.project(projectId)) throw apiError("not_found", `Project ${projectId} was not found.`);
  const tx = ctx.store.begin(projectId);
  let attempts = 0;
  let deliveryCount = 0;
  deliveries(tx).filter((d) => {
    deliveryCount++;
    attempts += d.attempts.length;
    return false;
  });
  const now = ctx.clock.now();
  return {
    status: 200,
    body: {
      projectId,
      clock: { now: ctx.clock.iso(), frozen: ctx.clock.frozen, offsetMs: now - Date.now() },
      counts: {
        evmAccounts: evmAccounts(tx).page(0, 0).total,
        solanaAccounts: solanaAccounts(tx).page(0, 0).total,
        smartAccounts: smartAccounts(tx).page(0, 0).total,
        endUsers: endUsers(tx).page(0, 0).total,
        policies: countOf(policies(tx)),
        transfers: transfers(tx).page(0, 0).total,
        onrampOrders: countOf(onrampOrders(tx)),
        webhookSubscriptions: countOf(subscriptions(tx)),
      },
      journal: ctx.journal.position(projectId),
      chains: chainsOf(tx, now),
      webhooks: { deliveries: deliveryCount, attempts },
    },
  };
};
