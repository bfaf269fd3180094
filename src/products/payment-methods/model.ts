/**
 * Payment methods: the bank accounts a project pays out to (transfer
 * targets). The platform's API only reads them, so every project starts with
 * the same realistic set, created on first use with ids derived from the
 * project (stable across restarts and seeds):
 *
 * | rail    | asset | bank             | active                         |
 * |---------|-------|------------------|--------------------------------|
 * | fedwire | usd   | JPMorgan Chase   | yes                            |
 * | sepa    | eur   | Deutsche Bank    | yes                            |
 * | swift   | usd   | Barclays Bank UK | no (expired: payment_method_required) |
 *
 * A method has no state machine: `active` never changes through the API.
 */
import type { ResponseBody, Schema } from "../../contract/types.js";
import { apiError } from "../../errors/catalogue.js";
import type { HandlerContext } from "../../wallet/types.js";
import { derivedUuid } from "../../wallet/shared/derivedId.js";
import { declareCollection } from "../../store/collections.js";

type PaymentMethodView = ResponseBody<"getPaymentMethod", 200>;
type PaymentRail = Schema<"payment-methods_PaymentMethod">["paymentRail"];

export interface PaymentMethodRecord {
  paymentMethodId: string;
  active: boolean;
  rail: PaymentRail;
  /** The currency the bank account holds: the only asset a transfer may deliver to it. */
  asset: string;
  bankName: string;
  last4: string;
  routingNumber?: string;
  bic?: string;
  createdAt: string;
  updatedAt: string;
}

const PAYMENT_METHODS = declareCollection<PaymentMethodRecord>("paymentMethods");

const SEEDS: Array<Omit<PaymentMethodRecord, "paymentMethodId" | "createdAt" | "updatedAt">> = [
  { rail: "fedwire", asset: "usd", bankName: "JPMorgan Chase Bank, N.A.", last4: "6789", routingNumber: "021000021", active: true },
  { rail: "sepa", asset: "eur", bankName: "Deutsche Bank AG", last4: "3000", bic: "DEUTDEFF", active: true },
  { rail: "swift", asset: "usd", bankName: "Barclays Bank UK PLC", last4: "4821", bic: "BARCGB22", active: false },
];

/** The project's payment methods, created on first use. */
export function paymentMethods(ctx: Pick<HandlerContext, "store" | "clock">): PaymentMethodRecord[] {
  const collection = ctx.store.collection(PAYMENT_METHODS);
  const existing = collection.list();
  if (existing.length > 0) return existing;
  const now = ctx.clock.iso();
  return SEEDS.map((seed) => {
    const record = {
      paymentMethodId: `paymentMethod_${derivedUuid(`payment-method/${ctx.store.projectId}/${seed.rail}`)}`,
      ...seed,
      createdAt: now,
      updatedAt: now,
    };
    collection.put(record.paymentMethodId, record);
    return record;
  });
}

export function findPaymentMethod(ctx: Pick<HandlerContext, "store" | "clock">, paymentMethodId: string): PaymentMethodRecord | undefined {
  return paymentMethods(ctx).find((m) => m.paymentMethodId === paymentMethodId);
}

export function paymentMethodView(m: PaymentMethodRecord): PaymentMethodView {
  const base = { paymentMethodId: m.paymentMethodId, active: m.active, createdAt: m.createdAt, updatedAt: m.updatedAt };
  if (m.rail === "fedwire")
    return { ...base, paymentRail: "fedwire", fedwire: { asset: m.asset, bankName: m.bankName, accountLast4: m.last4, routingNumber: m.routingNumber! } };
  if (m.rail === "sepa") return { ...base, paymentRail: "sepa", sepa: { asset: m.asset, bankName: m.bankName, ibanLast4: m.last4, bic: m.bic! } };
  return { ...base, paymentRail: "swift", swift: { asset: m.asset, bankName: m.bankName, accountLast4: m.last4, bic: m.bic! } };
}

/** A payment method a transfer can pay out to, or the error that says why not. */
export function usablePaymentMethod(ctx: Pick<HandlerContext, "store" | "clock">, paymentMethodId: string): PaymentMethodRecord {
  const method = findPaymentMethod(ctx, paymentMethodId);
  if (!method)
    throw apiError(
      "invalid_request",
      `target.paymentMethodId: payment method ${paymentMethodId} does not exist in this project; GET /v2/payment-methods lists them.`,
    );
  if (!method.active) {
    const usable = paymentMethods(ctx).filter((m) => m.active && m.asset === method.asset);
    throw apiError(
      "payment_method_required",
      `Payment method ${paymentMethodId} (${method.rail}, ${method.bankName}) has expired and cannot receive funds; ` +
        (usable.length > 0
          ? `use an active ${method.asset} method such as ${usable[0]!.paymentMethodId}.`
          : `the project has no active ${method.asset} payment method.`),
    );
  }
  return method;
}
