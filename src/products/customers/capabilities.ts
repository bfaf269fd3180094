/**
 * Which customer capabilities an operation on a customer-owned account needs,
 * as the platform's reference describes them, and the check that answers
 * 403 customer_not_authorized (with `unauthorizedCapabilities`) from the
 * customer's current state. Entity-owned accounts need nothing.
 *
 * | operation                                   | needs (of the account's customer)                          |
 * |---------------------------------------------|------------------------------------------------------------|
 * | createFoundationAccount with owner customer | custodyCrypto, custodyFiat, custodyStablecoin               |
 * | createDepositDestination, crypto            | custodyCrypto, custodyStablecoin                            |
 * | createDepositDestination, fiat              | custodyFiat                                                 |
 * | createTransfer, executeFundTransfer         | source customer: transfer<class of source asset> when funds |
 * |                                             | leave them, trade<class> of each non-fiat side of a         |
 * |                                             | conversion; target customer: custody<class of target asset> |
 */
import { apiError } from "../../errors/catalogue.js";
import type { ProjectTx } from "../../store/store.js";
import type { AssetClass } from "../shared/custodialAssets.js";
import { capabilityStatus, customers, requirementsOf, type CapabilityName } from "./model.js";
import { termsOf } from "./terms.js";

const cap = (verb: "custody" | "trade" | "transfer", cls: AssetClass) => `${verb}${cls[0]!.toUpperCase()}${cls.slice(1)}` as CapabilityName;

export interface CapabilityNeed {
  /** The account owner: entity_… (never checked) or customer_…. */
  owner: string;
  capabilities: CapabilityName[];
}

export const needsForAccountCreation = (owner: string): CapabilityNeed[] => [{ owner, capabilities: ["custodyCrypto", "custodyFiat", "custodyStablecoin"] }];

export const needsForDepositDestination = (owner: string, type: "crypto" | "fiat"): CapabilityNeed[] => [
  { owner, capabilities: type === "crypto" ? ["custodyCrypto", "custodyStablecoin"] : ["custodyFiat"] },
];

export function needsForTransfer(
  source: { owner: string; cls: AssetClass },
  target: { owner?: string; cls: AssetClass },
  conversion: boolean,
): CapabilityNeed[] {
  const fromSource: CapabilityName[] = [];
  if (source.owner !== target.owner) fromSource.push(cap("transfer", source.cls));
  if (conversion) for (const cls of new Set([source.cls, target.cls])) if (cls !== "fiat") fromSource.push(cap("trade", cls));
  const needs: CapabilityNeed[] = [{ owner: source.owner, capabilities: fromSource }];
  if (target.owner) needs.push({ owner: target.owner, capabilities: [cap("custody", target.cls)] });
  return needs;
}

/** Throws customer_not_authorized listing every needed capability that is not active, and what would unblock it. */
export function requireCapabilities(store: ProjectTx, nowMs: number, needs: CapabilityNeed[], action: string): void {
  const missing = new Set<CapabilityName>();
  const notes: string[] = [];
  const terms = termsOf(store);
  for (const need of needs) {
    if (!need.owner.startsWith("customer_") || need.capabilities.length === 0) continue;
    const found = customers(store).get(need.owner);
    const customer = found && !found.deleted ? found : undefined;
    const lacking = need.capabilities.filter((c) => !customer || capabilityStatus(customer, c, nowMs, terms) !== "active");
    if (lacking.length === 0) continue;
    for (const c of lacking) missing.add(c);
    const states = lacking.map((c) => `${c} (${customer ? capabilityStatus(customer, c, nowMs, terms) : "customer deleted"})`);
    const due = customer
      ? Object.entries(requirementsOf(customer, nowMs, terms))
          .filter(([, r]) => r.impact.some((c) => lacking.includes(c)))
          .map(([k, r]) => `${k} (${r.status})`)
      : [];
    const unrequested = lacking.filter((c) => customer && !customer.requested[c]);
    const advice =
      due.length > 0
        ? `submit ${due.join(", ")} with PUT /v2/customers/${need.owner}, then retry`
        : unrequested.length > 0
          ? `request ${unrequested.join(", ")} with PUT /v2/customers/${need.owner}, then submit the requirements it lists`
          : "no action is available for this customer";
    notes.push(`${need.owner} lacks ${states.join(", ")}: ${advice}`);
  }
  if (missing.size > 0) {
    throw apiError("customer_not_authorized", `The customer is not authorized to ${action}. ${notes.join("; ")}.`, {
      unauthorizedCapabilities: [...missing].sort(),
    });
  }
}
