/**
 * Customers: people a project acts for. Each capability (custodyCrypto,
 * transferFiat, ...) moves through
 *   unrequested → (requested) → pending ⇄ active,  and → inactive (final)
 * A requested capability is `pending` while a requirement that blocks it is
 * `due` or `rejected`, and `active` once none is; submitting the fields
 * (update) verifies them at once. `inactive` is final for a deleted customer,
 * and lasts until a customer under 18 on the sandbox clock turns 18. Every
 * change of a status is announced by webhook (events.ts). Requirements are keyed by field name,
 * listed only for requested capabilities, and vanish when met; what is still
 * due ("requirements.due") is the entries whose status is `due`.
 */
import type { ResponseBody, Schema } from "../../contract/types.js";
import { apiError } from "../../errors/catalogue.js";
import type { Collection, ProjectTx } from "../../store/store.js";
import { declareCollection } from "../../store/collections.js";

export const CAPABILITIES = [
  "custodyCrypto",
  "custodyFiat",
  "custodyStablecoin",
  "tradeCrypto",
  "tradeStablecoin",
  "transferCrypto",
  "transferFiat",
  "transferStablecoin",
] as const;
export type CapabilityName = (typeof CAPABILITIES)[number];
export type CapabilityStatus = Schema<"CapabilityStatus">;

interface IndividualData {
  firstName?: string;
  lastName?: string;
  email?: string;
  address?: { line1?: string; line2?: string; city?: string; state?: string; postCode?: string; countryCode?: string };
  ssnLast4?: string;
  fullSsn?: string;
  dateOfBirth?: { day?: string; month?: string; year?: string };
  [field: string]: unknown;
}

export interface TosAcceptance {
  versionId: string;
  language: string;
  acceptedAt: string;
}

export interface CustomerRecord {
  customerId: string;
  type: "individual";
  requested: Partial<Record<CapabilityName, boolean>>;
  individual: IndividualData;
  projectIds: string[];
  tosAcceptances: TosAcceptance[];
  taxForms: string[];
  deleted?: boolean;
  createdAt: string;
  updatedAt: string;
  /** Capability statuses as last announced by webhook (events.ts); absent on customers from before webhooks. */
  announcedCapabilities?: Partial<Record<CapabilityName, CapabilityStatus>>;
  /** When a status changes with the clock alone (the customer turns 18), so it is announced then. */
  reviewAtMs?: number;
}

export const CUSTOMERS = declareCollection<CustomerRecord>("customers", { dueAt: (c) => c.reviewAtMs });

export const customers = (store: ProjectTx): Collection<CustomerRecord> => store.collection(CUSTOMERS);

/** The terms every customer accepts for custody, trading and fiat transfers. */
export const TERMS = { versionId: "us_individual_2026-05-29", languages: ["en", "es"], url: "https://docs.cdp.coinbase.com/legal/terms/us_individual" };

const CUSTODY: CapabilityName[] = ["custodyCrypto", "custodyFiat", "custodyStablecoin"];
const TRADE: CapabilityName[] = ["tradeCrypto", "tradeStablecoin"];
const filled = (v: unknown) => typeof v === "string" && v.trim() !== "";

type RequirementState = "met" | "due" | "rejected";

/** Which fields each capability needs (docs/custodial.md, "Customers"). */
const REQUIREMENTS: Array<{ key: string; blocks: CapabilityName[]; state: (c: CustomerRecord) => RequirementState }> = [
  { key: "firstName", blocks: [...CAPABILITIES], state: (c) => (filled(c.individual.firstName) ? "met" : "due") },
  { key: "lastName", blocks: [...CAPABILITIES], state: (c) => (filled(c.individual.lastName) ? "met" : "due") },
  {
    key: "address",
    blocks: [...CAPABILITIES],
    state: (c) => (["line1", "city", "state", "postCode", "countryCode"].every((f) => filled(c.individual.address?.[f as "city"])) ? "met" : "due"),
  },
  {
    key: "dateOfBirth",
    blocks: [...CUSTODY, ...TRADE, "transferFiat"],
    state: (c) => (["day", "month", "year"].every((f) => filled(c.individual.dateOfBirth?.[f as "day"])) ? "met" : "due"),
  },
  {
    // A number ending in 0000 never verifies (SSA issues no serial 0000): the sandbox's way to show `rejected`.
    key: "ssnLast4",
    blocks: [...CUSTODY, ...TRADE, "transferFiat"],
    state: (c) => {
      const last4 = c.individual.ssnLast4 ?? c.individual.fullSsn?.slice(-4);
      return !filled(last4) ? "due" : last4 === "0000" ? "rejected" : "met";
    },
  },
  { key: "sourceOfFunds", blocks: [...TRADE, "transferFiat"], state: (c) => (filled(c.individual.sourceOfFunds) ? "met" : "due") },
  {
    key: "tos",
    blocks: [...CUSTODY, ...TRADE, "transferFiat"],
    state: (c) => (c.tosAcceptances.some((a) => a.versionId === TERMS.versionId) ? "met" : "due"),
  },
  { key: "taxAttestation", blocks: ["custodyFiat", "transferFiat"], state: (c) => (c.taxForms.includes("us_w9") ? "met" : "due") },
];

/** Age in whole years on `nowMs`, when a complete date of birth was given. */
function ageOf(c: CustomerRecord, nowMs: number): number | undefined {
  const dob = c.individual.dateOfBirth;
  if (!dob?.year || !dob.month || !dob.day) return undefined;
  const now = new Date(nowMs);
  const [y, m, d] = [Number(dob.year), Number(dob.month), Number(dob.day)];
  const birthdayPassed = now.getUTCMonth() + 1 > m || (now.getUTCMonth() + 1 === m && now.getUTCDate() >= d);
  return now.getUTCFullYear() - y - (birthdayPassed ? 0 : 1);
}

/** When a customer with a complete date of birth turns 18 (UTC), which unblocks their capabilities. */
export function adultAtMs(c: CustomerRecord): number | undefined {
  const dob = c.individual.dateOfBirth;
  if (!dob?.year || !dob.month || !dob.day) return undefined;
  return Date.UTC(Number(dob.year) + 18, Number(dob.month) - 1, Number(dob.day));
}

/** Permanently blocked: nothing the developer submits can help. */
export function isBlocked(c: CustomerRecord, nowMs: number): boolean {
  const age = ageOf(c, nowMs);
  return c.deleted === true || (age !== undefined && age < 18);
}

export function capabilityStatus(c: CustomerRecord, capability: CapabilityName, nowMs: number): CapabilityStatus {
  if (!c.requested[capability]) return "unrequested";
  if (isBlocked(c, nowMs)) return "inactive";
  const open = REQUIREMENTS.some((r) => r.blocks.includes(capability) && r.state(c) !== "met");
  return open ? "pending" : "active";
}

/** Open requirements of requested capabilities, by field name, as the contract's RequirementsMap. */
export function requirementsOf(
  c: CustomerRecord,
  nowMs: number,
): Record<string, { status: "due" | "rejected"; impact: CapabilityName[]; tosVersions?: (typeof TERMS)[]; taxForms?: "us_w9"[] }> {
  if (isBlocked(c, nowMs)) return {};
  const out: ReturnType<typeof requirementsOf> = {};
  for (const r of REQUIREMENTS) {
    const impact = r.blocks.filter((cap) => c.requested[cap]).sort();
    const state = r.state(c);
    if (impact.length === 0 || state === "met") continue;
    out[r.key] = {
      status: state,
      impact,
      ...(r.key === "tos" ? { tosVersions: [TERMS] } : {}),
      ...(r.key === "taxAttestation" ? { taxForms: ["us_w9" as const] } : {}),
    };
  }
  return out;
}

export function customerView(c: CustomerRecord, nowMs: number): ResponseBody<"getCustomerById", 200> {
  const { firstName, lastName, email } = c.individual;
  return {
    customerId: c.customerId,
    type: c.type,
    capabilities: Object.fromEntries(CAPABILITIES.map((cap) => [cap, { requested: c.requested[cap] === true, status: capabilityStatus(c, cap, nowMs) }])),
    requirements: requirementsOf(c, nowMs),
    createdAt: c.createdAt,
    updatedAt: c.updatedAt,
    // Only the contact fields are ever shown back; the rest of `individual` is write-only.
    individual: {
      ...(firstName !== undefined ? { firstName } : {}),
      ...(lastName !== undefined ? { lastName } : {}),
      ...(email !== undefined ? { email } : {}),
    },
    projectIds: c.projectIds,
    ...(c.tosAcceptances.length > 0 ? { tosAcceptances: c.tosAcceptances } : {}),
  };
}

/** A live customer, or 404 (deleted customers are gone for reads). */
export function findCustomer(store: ProjectTx, customerId: string): CustomerRecord {
  const record = customers(store).get(customerId);
  if (!record || record.deleted) throw apiError("not_found", `Customer ${customerId} was not found in this project.`);
  return record;
}
