/**
 * Customers: people a project acts for. Each capability (custodyCrypto,
 * transferFiat, ...) moves through
 *   unrequested → (requested) → pending ⇄ active,  and → inactive (final)
 * A requested capability is `pending` while a requirement that blocks it is
 * `due`, `past_due` or `rejected`, and `active` once none is (Terms of Service
 * still in their grace period are `due` without blocking: terms.ts); submitting the fields
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
import { blocksNow, type TermsVersion } from "./terms.js";

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

export const CUSTOMERS = declareCollection<CustomerRecord>("customers", { dueAt: (c) => c.reviewAtMs, order: "insertion" });

export const customers = (store: ProjectTx): Collection<CustomerRecord> => store.collection(CUSTOMERS);

const CUSTODY: CapabilityName[] = ["custodyCrypto", "custodyFiat", "custodyStablecoin"];
const TRADE: CapabilityName[] = ["tradeCrypto", "tradeStablecoin"];
const filled = (v: unknown) => typeof v === "string" && v.trim() !== "";

type RequirementState = "met" | "due" | "past_due" | "rejected";

/** The Terms of Service versions `c` has not accepted. */
const unaccepted = (c: CustomerRecord, terms: readonly TermsVersion[]) => terms.filter((v) => !c.tosAcceptances.some((a) => a.versionId === v.versionId));

/** Which fields each capability needs (docs/custodial.md, "Customers"). */
const REQUIREMENTS: Array<{
  key: string;
  blocks: CapabilityName[];
  state: (c: CustomerRecord, terms: readonly TermsVersion[], nowMs: number) => RequirementState;
}> = [
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
    state: (c, terms, nowMs) => {
      const open = unaccepted(c, terms);
      if (open.length === 0) return "met";
      return open.some((v) => v.deadline !== undefined && Date.parse(v.deadline) <= nowMs) ? "past_due" : "due";
    },
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

/** Whether a requirement holds a capability back: any open one, except Terms of Service all in their grace period. */
function blocking(r: (typeof REQUIREMENTS)[number], c: CustomerRecord, terms: readonly TermsVersion[], nowMs: number): boolean {
  if (r.key === "tos") return unaccepted(c, terms).some((v) => blocksNow(v, nowMs));
  return r.state(c, terms, nowMs) !== "met";
}

export function capabilityStatus(c: CustomerRecord, capability: CapabilityName, nowMs: number, terms: readonly TermsVersion[]): CapabilityStatus {
  if (!c.requested[capability]) return "unrequested";
  if (isBlocked(c, nowMs)) return "inactive";
  const open = REQUIREMENTS.some((r) => r.blocks.includes(capability) && blocking(r, c, terms, nowMs));
  return open ? "pending" : "active";
}

/** The next time a Terms of Service deadline of `c` passes (which may change its statuses), if any is ahead. */
export function nextTermsDeadlineMs(c: CustomerRecord, nowMs: number, terms: readonly TermsVersion[]): number | undefined {
  const ahead = unaccepted(c, terms)
    .map((v) => (v.deadline === undefined ? Number.NaN : Date.parse(v.deadline)))
    .filter((t) => t > nowMs);
  return ahead.length > 0 ? Math.min(...ahead) : undefined;
}

type OpenRequirement = {
  status: "due" | "past_due" | "rejected";
  deadline?: string;
  impact: CapabilityName[];
  tosVersions?: TermsVersion[];
  taxForms?: "us_w9"[];
};

/** The `tos` entry for terms not yet accepted: the versions, and the earliest deadline among them when one has one. */
function termsRequirement(open: readonly TermsVersion[], impact: CapabilityName[], nowMs: number): OpenRequirement {
  const deadlines = open.flatMap((v) => (v.deadline !== undefined ? [v.deadline] : [])).sort((a, b) => Date.parse(a) - Date.parse(b));
  return {
    status: open.some((v) => v.deadline !== undefined && Date.parse(v.deadline) <= nowMs) ? "past_due" : "due",
    ...(deadlines[0] !== undefined ? { deadline: deadlines[0] } : {}),
    impact,
    tosVersions: open.map((v) => ({ ...v, languages: [...v.languages] })),
  };
}

/**
 * What a customer who has submitted nothing would be asked for, for these capabilities: the preview of
 * GET /v2/customers/requirements, which shows the Terms of Service requirement only.
 */
export function previewRequirements(capabilities: readonly CapabilityName[], nowMs: number, terms: readonly TermsVersion[]): Record<string, OpenRequirement> {
  const tos = REQUIREMENTS.find((r) => r.key === "tos")!;
  const impact = [...new Set(capabilities.filter((cap) => tos.blocks.includes(cap)))].sort();
  return impact.length > 0 && terms.length > 0 ? { tos: termsRequirement(terms, impact, nowMs) } : {};
}

/** Open requirements of requested capabilities, by field name, as the contract's RequirementsMap. */
export function requirementsOf(c: CustomerRecord, nowMs: number, terms: readonly TermsVersion[]): Record<string, OpenRequirement> {
  if (isBlocked(c, nowMs)) return {};
  const out: ReturnType<typeof requirementsOf> = {};
  for (const r of REQUIREMENTS) {
    const impact = r.blocks.filter((cap) => c.requested[cap]).sort();
    const state = r.state(c, terms, nowMs);
    if (impact.length === 0 || state === "met") continue;
    if (r.key === "tos") out.tos = termsRequirement(unaccepted(c, terms), impact, nowMs);
    else out[r.key] = { status: state, impact, ...(r.key === "taxAttestation" ? { taxForms: ["us_w9" as const] } : {}) };
  }
  return out;
}

export function customerView(c: CustomerRecord, nowMs: number, terms: readonly TermsVersion[]): ResponseBody<"getCustomerById", 200> {
  const { firstName, lastName, email } = c.individual;
  return {
    customerId: c.customerId,
    type: c.type,
    capabilities: Object.fromEntries(
      CAPABILITIES.map((cap) => [cap, { requested: c.requested[cap] === true, status: capabilityStatus(c, cap, nowMs, terms) }]),
    ),
    requirements: requirementsOf(c, nowMs, terms),
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
