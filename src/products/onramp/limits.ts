/**
 * A guest buyer's limits, keyed by phone number: at most $500 over any 168
 * hours (orders' payment totals, fees included) and 15 orders in a lifetime;
 * orders that failed do not count. An upgrade raises them to $2,500 a week
 * and no lifetime cap once approved.
 *
 * Upgrade states: unrequested → pending (identity fields submitted, by API or
 * on the hosted upgrade page) → after 5 minutes of review: active, resubmit
 * (ssnLast4 "0000", a serial never issued: submit again) or inactive (a buyer
 * under 18: final).
 */
import type { ResponseBody, Schema } from "../../contract/types.js";
import { apiError } from "../../errors/catalogue.js";
import type { Handler, HandlerContext } from "../../wallet/types.js";
import { trimUnits } from "./amounts.js";
import { hostedUrl, pageToken } from "./links.js";
import { countsAgainstLimits, onrampOrders } from "./model.js";
import { checkPhoneNumber } from "./regions.js";
import { onrampVerifications } from "./verifications.js";
import { declareCollection } from "../../store/collections.js";

const WEEK_MS = 168 * 60 * 60 * 1000;
const REVIEW_MS = 5 * 60 * 1000;
const UPGRADE_PAGE_LIFETIME_MS = 60 * 60 * 1000;
const DEFAULT = { weeklyUsdCents: 50_000n, lifetime: 15n };
const UPGRADED = { weeklyUsdCents: 250_000n, lifetime: 2_147_483_647n };
const UPGRADE_FIELDS = ["ssnLast4", "dateOfBirth"] as const;

type UpgradeStatus = Schema<"OnrampLimitUpgradeStatus">;

interface LimitUpgradeRecord {
  phoneNumber: string;
  requestedAtMs: number;
  /** What the review decides, known from the fields at submission and revealed after REVIEW_MS. */
  outcome: "active" | "resubmit" | "inactive";
}

/** An embedded-mode upgrade page, single use, valid for an hour. */
export interface UpgradePageRecord {
  token: string;
  phoneNumber: string;
  expiresAtMs: number;
  usedAtMs?: number;
}

const ONRAMP_LIMIT_UPGRADES = declareCollection<LimitUpgradeRecord>("onrampLimitUpgrades");
const ONRAMP_UPGRADE_PAGES = declareCollection<UpgradePageRecord>("onrampUpgradePages");

const limitUpgrades = (ctx: Pick<HandlerContext, "store">) => ctx.store.collection(ONRAMP_LIMIT_UPGRADES);
export const upgradePages = (ctx: Pick<HandlerContext, "store">) => ctx.store.collection(ONRAMP_UPGRADE_PAGES);

function upgradeStatus(ctx: Pick<HandlerContext, "store" | "clock">, phoneNumber: string): UpgradeStatus {
  const upgrade = limitUpgrades(ctx).get(phoneNumber);
  if (!upgrade) return "unrequested";
  return ctx.clock.now() < upgrade.requestedAtMs + REVIEW_MS ? "pending" : upgrade.outcome;
}

/** A buyer the platform knows: one who placed an order or confirmed a code sent to the number. */
function checkKnownBuyer(ctx: HandlerContext, phoneNumber: string): void {
  const known =
    onrampOrders(ctx.store).find((o) => o.phoneNumber === phoneNumber) !== undefined ||
    onrampVerifications(ctx.store).find((v) => v.channel === "sms" && v.destination === phoneNumber && v.status === "verified") !== undefined;
  if (!known) {
    throw apiError(
      "invalid_request",
      `The phone number ${phoneNumber} has not been verified with this project: verify it (initiate and submit an sms verification) or place an order with it first.`,
    );
  }
}

function usage(ctx: HandlerContext, phoneNumber: string) {
  const now = ctx.clock.now();
  const orders = onrampOrders(ctx.store).filter((o) => o.phoneNumber === phoneNumber && countsAgainstLimits(o));
  const weekly = orders.filter((o) => o.createdAtMs > now - WEEK_MS).reduce((sum, o) => sum + BigInt(o.usdTotalCents), 0n);
  const limits = upgradeStatus(ctx, phoneNumber) === "active" ? UPGRADED : DEFAULT;
  return { limits, weekly, lifetime: BigInt(orders.length) };
}

/** guest_transaction_count, then guest_transaction_limit, for a new order of `usdCents`. */
export function checkGuestLimits(ctx: HandlerContext, phoneNumber: string, usdCents: bigint): void {
  const { limits, weekly, lifetime } = usage(ctx, phoneNumber);
  if (lifetime >= limits.lifetime) {
    throw apiError("guest_transaction_count", `The buyer ${phoneNumber} has reached the lifetime guest onramp transaction count limit (${limits.lifetime}).`);
  }
  if (weekly + usdCents > limits.weeklyUsdCents) {
    throw apiError(
      "guest_transaction_limit",
      `This order of $${trimUnits(usdCents, 2)} would exceed the buyer's weekly guest onramp limit: $${trimUnits(weekly, 2)} of $${trimUnits(limits.weeklyUsdCents, 2)} used in the last 168 hours.`,
    );
  }
}

export const getOnrampUserLimits: Handler<"getOnrampUserLimits"> = (req, ctx) => {
  const { userId } = req.body;
  checkPhoneNumber(userId, "userId");
  checkKnownBuyer(ctx, userId);
  const { limits, weekly, lifetime } = usage(ctx, userId);
  const positive = (n: bigint) => (n > 0n ? n : 0n);
  const status = upgradeStatus(ctx, userId);
  const body: ResponseBody<"getOnrampUserLimits", 200> = {
    limits: [
      {
        limitType: "weekly_spending",
        currency: "USD",
        limit: trimUnits(limits.weeklyUsdCents, 2),
        remaining: trimUnits(positive(limits.weeklyUsdCents - weekly), 2),
      },
      { limitType: "lifetime_transactions", limit: limits.lifetime.toString(), remaining: positive(limits.lifetime - lifetime).toString() },
    ],
    limitUpgradeOptions: [
      {
        status,
        fields: status === "unrequested" ? [...UPGRADE_FIELDS] : status === "resubmit" ? ["ssnLast4"] : [],
        limitUpgrades: [
          { limitType: "weekly_spending", maxUpgrade: trimUnits(UPGRADED.weeklyUsdCents, 2) },
          { limitType: "lifetime_transactions", maxUpgrade: UPGRADED.lifetime.toString() },
        ],
      },
    ],
  };
  return { status: 200, body };
};

export const requestLimitsUpgrade: Handler<"requestLimitsUpgrade"> = (req, ctx) => {
  const { userId, interactionMode = "api", fields } = req.body;
  checkPhoneNumber(userId, "userId");
  checkKnownBuyer(ctx, userId);
  checkUpgradeAllowed(ctx, userId);
  if (interactionMode === "embedded") {
    if (fields !== undefined)
      throw apiError(
        "invalid_request",
        "In embedded mode the buyer enters the identity fields on the upgrade page; leave fields out (or use interactionMode api).",
      );
    const page: UpgradePageRecord = { token: pageToken(ctx), phoneNumber: userId, expiresAtMs: ctx.clock.now() + UPGRADE_PAGE_LIFETIME_MS };
    upgradePages(ctx).put(page.token, page);
    const body: ResponseBody<"requestLimitsUpgrade", 200> = {
      upgradeUrl: hostedUrl(req, "limits-upgrade", { token: page.token }),
      expiresAt: new Date(page.expiresAtMs).toISOString(),
    };
    return { status: 200, body };
  }
  submitUpgrade(ctx, userId, fields);
  return { status: 202 };
};

function checkUpgradeAllowed(ctx: Pick<HandlerContext, "store" | "clock">, phoneNumber: string): void {
  const status = upgradeStatus(ctx, phoneNumber);
  if (status === "pending")
    throw apiError("invalid_request", `A limit upgrade for ${phoneNumber} is already under review; check getOnrampUserLimits for its status.`);
  if (status === "active") throw apiError("invalid_request", `The limit upgrade for ${phoneNumber} is already active.`);
  if (status === "inactive") throw apiError("invalid_request", `The limit upgrade for ${phoneNumber} was rejected and cannot be resubmitted.`);
}

/** Checks the identity fields and starts the review; shared by the API mode and the hosted upgrade page. */
export function submitUpgrade(
  ctx: Pick<HandlerContext, "store" | "clock">,
  phoneNumber: string,
  fields: { ssnLast4?: unknown; dateOfBirth?: unknown } | undefined,
): void {
  checkUpgradeAllowed(ctx, phoneNumber);
  const ssnLast4 = fields?.ssnLast4;
  if (typeof ssnLast4 !== "string" || !/^\d{4}$/.test(ssnLast4))
    throw apiError("invalid_request", 'fields.ssnLast4 must be the last 4 digits of the Social Security Number, e.g. "5678".');
  const born = birthDate(fields?.dateOfBirth);
  const now = new Date(ctx.clock.now());
  const eighteenth = Date.UTC(born.year + 18, born.month - 1, born.day);
  if (Date.UTC(born.year, born.month - 1, born.day) > now.getTime()) throw apiError("invalid_request", "fields.dateOfBirth is in the future.");
  const outcome: LimitUpgradeRecord["outcome"] = eighteenth > now.getTime() ? "inactive" : ssnLast4 === "0000" ? "resubmit" : "active";
  limitUpgrades(ctx).put(phoneNumber, { phoneNumber, requestedAtMs: ctx.clock.now(), outcome });
}

function birthDate(value: unknown): { year: number; month: number; day: number } {
  const v = value as { day?: unknown; month?: unknown; year?: unknown } | undefined;
  const bad = () =>
    apiError("invalid_request", 'fields.dateOfBirth must be a real date as zero-padded strings, e.g. {"day": "15", "month": "08", "year": "1990"}.');
  if (!v || typeof v !== "object" || ![v.day, v.month, v.year].every((p) => typeof p === "string" && /^\d+$/.test(p))) throw bad();
  const [day, month, year] = [Number(v.day), Number(v.month), Number(v.year)];
  const date = new Date(Date.UTC(year, month - 1, day));
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) throw bad();
  return { year, month, day };
}
