/**
 * What the hosted pages behind the platform's links show, and the one thing
 * each does, on a project's store (served by src/admin/onramp.ts):
 * - the onramp page of a session: works once, within its 5 minutes;
 * - an order's payment link (wallet button or embedded order): works while
 *   the buyer has not paid yet, afterwards it is no longer valid;
 * - the embedded limit-upgrade page: shows the form, takes the buyer's
 *   identity fields once, within its hour;
 * - the verification outbox: the code "sent" by SMS or email.
 */
import type { Clock } from "../../clock.js";
import { apiError } from "../../errors/catalogue.js";
import type { ProjectTx } from "../../store/store.js";
import { submitUpgrade, upgradePages } from "./limits.js";
import { AWAITING_BUYER, onrampOrders, orderView, stageAt } from "./model.js";
import { onrampSessions } from "./sessions.js";
import { onrampVerifications } from "./verifications.js";

export type PageKind = "buy" | "apple-pay" | "google-pay" | "embedded" | "limits-upgrade";

interface Scope {
  store: ProjectTx;
  clock: Clock;
}

const iso = (ms: number) => new Date(ms).toISOString();

const orderByLink = (store: ProjectTx, token: string) => onrampOrders(store).find((o) => o.paymentLinkToken === token);

/** Whether this project issued the page's token (the admin router asks every project). */
export function issuedPage(store: ProjectTx, kind: PageKind, token: string): boolean {
  if (kind === "buy") return onrampSessions(store).get(token) !== undefined;
  if (kind === "limits-upgrade") return upgradePages({ store }).get(token) !== undefined;
  return orderByLink(store, token) !== undefined;
}

/** The session's onramp page; marks the single-use URL as used. */
export function openOnrampPage({ store, clock }: Scope, token: string) {
  const session = onrampSessions(store).get(token);
  if (!session) throw apiError("not_found", "This onramp URL does not exist; create a session with createOnrampSession.");
  if (session.openedAtMs !== undefined) {
    throw apiError("forbidden", `This onramp URL is single-use and was already opened at ${iso(session.openedAtMs)}; create a new session for another visit.`);
  }
  if (clock.now() > session.expiresAtMs) throw apiError("forbidden", `This onramp URL expired unused at ${iso(session.expiresAtMs)}; create a new session.`);
  onrampSessions(store).put(token, { ...session, openedAtMs: clock.now() });
  const r = session.request;
  return {
    page: "onramp" as const,
    purchaseCurrency: r.purchaseCurrency,
    destinationNetwork: r.destinationNetwork,
    destinationAddress: r.destinationAddress,
    ...(r.paymentAmount !== undefined ? { paymentAmount: r.paymentAmount } : {}),
    ...(r.purchaseAmount !== undefined ? { purchaseAmount: r.purchaseAmount } : {}),
    ...(r.paymentCurrency !== undefined ? { paymentCurrency: r.paymentCurrency } : {}),
    ...(r.paymentMethod !== undefined ? { paymentMethod: r.paymentMethod } : {}),
    ...(session.quote ? { quote: session.quote } : {}),
    ...(r.redirectUrl !== undefined ? { redirectUrl: r.redirectUrl } : {}),
    ...(r.partnerUserRef !== undefined ? { partnerUserRef: r.partnerUserRef } : {}),
    openedAt: iso(clock.now()),
  };
}

/** An order's payment link: the pay button, valid until the buyer has paid (or the order failed). */
export function openPaymentLink({ store, clock }: Scope, kind: PageKind, token: string) {
  const order = orderByLink(store, token);
  const expected = order?.priced.paymentMethod === "GUEST_CHECKOUT_GOOGLE_PAY" ? "google-pay" : "apple-pay";
  if (!order || (order.phoneNumber === undefined ? "embedded" : expected) !== kind) {
    throw apiError("not_found", "This payment link does not exist; create an order with createOnrampOrder.");
  }
  const { status } = stageAt(order, clock.now());
  if (!AWAITING_BUYER.includes(status)) {
    throw apiError(
      "forbidden",
      `This payment link is no longer valid (ERROR_CODE_INIT): order ${order.orderId} is ${status}; create a new order for another payment.`,
    );
  }
  return {
    page: kind === "embedded" ? ("embedded-order" as const) : kind,
    order: orderView(order, clock.now()),
    ...(order.locale ? { locale: order.locale } : {}),
  };
}

function upgradePage({ store, clock }: Scope, token: string) {
  const page = upgradePages({ store }).get(token);
  if (!page) throw apiError("not_found", "This limit-upgrade page does not exist; ask for one with requestLimitsUpgrade (interactionMode embedded).");
  if (page.usedAtMs !== undefined) throw apiError("forbidden", `This limit-upgrade page was already submitted at ${iso(page.usedAtMs)}.`);
  if (clock.now() > page.expiresAtMs) throw apiError("forbidden", `This limit-upgrade page expired at ${iso(page.expiresAtMs)}; ask for a new one.`);
  return page;
}

/** The embedded upgrade form. */
export function openUpgradePage(scope: Scope, token: string) {
  const page = upgradePage(scope, token);
  return { page: "limits-upgrade" as const, userId: page.phoneNumber, fields: ["ssnLast4" as const, "dateOfBirth" as const], expiresAt: iso(page.expiresAtMs) };
}

/** The buyer submits the form: the upgrade goes to review, and the page is used up. */
export function submitUpgradePage(scope: Scope, token: string, fields: Record<string, unknown>) {
  const page = upgradePage(scope, token);
  submitUpgrade(scope, page.phoneNumber, fields);
  upgradePages(scope).put(token, { ...page, usedAtMs: scope.clock.now() });
  return { userId: page.phoneNumber, status: "pending" as const };
}

/** The code the sandbox "sent", for tests and demos (no SMS or email leaves the sandbox). */
export function verificationOutbox(store: ProjectTx, verificationId: string) {
  const v = onrampVerifications(store).get(verificationId);
  if (!v) return undefined;
  return { verificationId, channel: v.channel, destination: v.destination, otpCode: v.otpCode, otpExpiresAt: iso(v.otpExpiresAtMs), status: v.status };
}
