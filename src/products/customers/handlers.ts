/**
 * Customers: create, read, list, update (PUT, and the POST some clients use:
 * one behaviour) and delete. Updates merge: capabilities are requested
 * or withdrawn one by one, `individual` fields replace the ones given, terms
 * acceptances and tax attestations add up. What they change is seen at once
 * in `capabilities` and `requirements` (src/products/customers/model.ts), and
 * announced by webhook (events.ts).
 */
import type { RequestBody } from "../../contract/types.js";
import { apiError } from "../../errors/catalogue.js";
import { paginateWhere } from "../../wallet/shared/pagination.js";
import type { Handler, HandlerContext, Handlers } from "../../wallet/types.js";
import { announceCapabilityChanges, announceDeletion } from "./events.js";
import { termsOf, type TermsVersion } from "./terms.js";
import {
  CAPABILITIES,
  customers,
  customerView,
  findCustomer,
  isBlocked,
  previewRequirements,
  type CapabilityName,
  type CustomerRecord,
  type TosAcceptance,
} from "./model.js";

type CustomerWrite = RequestBody<"updateCustomerById">;

/** Applies a create or update body to a record; validates everything before the caller stores it. */
function applyWrite(record: CustomerRecord, body: CustomerWrite, ctx: HandlerContext): CustomerRecord {
  const next: CustomerRecord = structuredClone(record);
  for (const [name, input] of Object.entries(body.capabilities ?? {})) {
    // Object.entries types its keys as string; the contract admits capability names only.
    if (input) next.requested[name as CapabilityName] = input.requested;
  }
  if (body.individual) {
    const { address, dateOfBirth, ...rest } = body.individual;
    next.individual = { ...next.individual, ...rest };
    if (address) next.individual.address = { ...next.individual.address, ...address };
    if (dateOfBirth) next.individual.dateOfBirth = { ...dateOfBirth };
  }
  const terms = termsOf(ctx.store);
  for (const acceptance of body.tosAcceptances ?? [])
    next.tosAcceptances = [...next.tosAcceptances.filter((a) => a.versionId !== acceptance.versionId), checkTos(acceptance, terms)];
  for (const attestation of body.taxAttestations ?? []) if (!next.taxForms.includes(attestation.form)) next.taxForms.push(attestation.form);
  if (body.projectIds) next.projectIds = [...new Set(body.projectIds)];
  next.updatedAt = ctx.clock.iso();
  return next;
}

function checkTos(acceptance: TosAcceptance, terms: readonly TermsVersion[]): TosAcceptance {
  const version = terms.find((v) => v.versionId === acceptance.versionId);
  if (!version) {
    throw apiError(
      "invalid_request",
      `tosAcceptances: Terms of Service version '${acceptance.versionId}' is not one a customer is asked to accept; the versions are ${terms.map((v) => `'${v.versionId}'`).join(", ")}.`,
    );
  }
  if (!version.languages.includes(acceptance.language)) {
    throw apiError(
      "unsupported_tos_language",
      `Terms of Service version '${acceptance.versionId}' is not published in language '${acceptance.language}'. Supported languages: ${version.languages.map((l) => `'${l}'`).join(", ")}.`,
    );
  }
  return { versionId: acceptance.versionId, language: acceptance.language, acceptedAt: acceptance.acceptedAt };
}

const createCustomer: Handler<"createCustomer"> = (req, ctx) => {
  const body = req.body;
  const now = ctx.clock.iso();
  const blank: CustomerRecord = {
    customerId: `customer_${ctx.random.uuid()}`,
    type: "individual",
    requested: {},
    individual: {},
    projectIds: [ctx.project.id],
    tosAcceptances: [],
    taxForms: [],
    createdAt: now,
    updatedAt: now,
  };
  const record = announceCapabilityChanges(ctx, undefined, applyWrite(blank, body, ctx));
  customers(ctx.store).insert(record.customerId, record);
  return { status: 201, body: customerView(record, ctx.clock.now(), termsOf(ctx.store)) };
};

const getCustomerById: Handler<"getCustomerById"> = (req, ctx) => ({
  status: 200,
  body: customerView(findCustomer(ctx.store, req.pathParams.customerId), ctx.clock.now(), termsOf(ctx.store)),
});

/**
 * The requirements a customer of this type and country would meet for these capabilities, before any customer
 * exists: the Terms of Service only, for individuals of the US (by residence, else by citizenship).
 */
const getCustomerRequirements: Handler<"getCustomerRequirements"> = (req, ctx) => {
  const { customerType, countryCode, citizenship } = req.query;
  const capabilities = [req.query.capabilities].flat() as CapabilityName[];
  const country = countryCode ?? citizenship;
  if (country === undefined) throw apiError("invalid_request", "Name the customer's countryCode or citizenship (at least one).");
  if (customerType !== "individual" || country !== "US") {
    throw apiError(
      "invalid_request",
      `Requirements can be previewed for individual customers of the US only, not a ${customerType} of ${country}${countryCode !== undefined && citizenship !== undefined ? " (countryCode takes precedence over citizenship)" : ""}.`,
    );
  }
  return { status: 200, body: previewRequirements(capabilities, ctx.clock.now(), termsOf(ctx.store)) };
};

const listCustomers: Handler<"listCustomers"> = (req, ctx) => {
  const page = paginateWhere((offset, size) => customers(ctx.store).pageWhere(offset, size, (c) => !c.deleted), req.query, "customers");
  const terms = termsOf(ctx.store);
  return {
    status: 200,
    body: {
      customers: page.items.map((c) => customerView(c, ctx.clock.now(), terms)),
      ...(page.nextPageToken ? { nextPageToken: page.nextPageToken } : {}),
    },
  };
};

function updateCustomer(ctx: HandlerContext, customerId: string, body: CustomerWrite) {
  const record = findCustomer(ctx.store, customerId);
  if (isBlocked(record, ctx.clock.now()) && CAPABILITIES.some((c) => record.requested[c])) {
    throw apiError("forbidden", `Customer ${record.customerId} cannot be modified: its capabilities are permanently inactive (the customer is under 18).`);
  }
  const updated = announceCapabilityChanges(ctx, record, applyWrite(record, body, ctx));
  customers(ctx.store).put(updated.customerId, updated);
  return { status: 200 as const, body: customerView(updated, ctx.clock.now(), termsOf(ctx.store)) };
}

const updateCustomerById: Handler<"updateCustomerById"> = (req, ctx) => updateCustomer(ctx, req.pathParams.customerId, req.body);

const updateCustomerByIdWithPost: Handler<"updateCustomerByIdWithPost"> = (req, ctx) => updateCustomer(ctx, req.pathParams.customerId, req.body);

/** Idempotent, as the platform's: deleting a deleted customer is 204 again; only an unknown id is 404. */
const deleteCustomerById: Handler<"deleteCustomerById"> = (req, ctx) => {
  const record = customers(ctx.store).get(req.pathParams.customerId);
  if (!record) throw apiError("not_found", `Customer ${req.pathParams.customerId} was not found in this project.`);
  if (!record.deleted) {
    customers(ctx.store).put(record.customerId, announceCapabilityChanges(ctx, record, { ...record, deleted: true, updatedAt: ctx.clock.iso() }));
    announceDeletion(ctx, record.customerId);
  }
  return { status: 204 };
};

export const handlers: Handlers = {
  createCustomer,
  getCustomerById,
  getCustomerRequirements,
  listCustomers,
  updateCustomerById,
  updateCustomerByIdWithPost,
  deleteCustomerById,
};
