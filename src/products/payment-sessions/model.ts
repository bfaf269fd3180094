/**
 * Payment sessions and their state machine. A session is one payment a
 * merchant asks for; the payer authorizes it (their funds are held in the
 * sandbox's payment escrow), then the merchant captures (pays itself), voids
 * (releases the rest) or refunds (pays the payer back):
 *
 *   created ──authorize──→ authorization_pending ──lands──→ authorization_succeeded | authorization_failed
 *   created ──cancel──→ canceled
 *   capture / void / refund ──→ {action}_pending ──lands──→ {action}_succeeded | {action}_failed
 *
 * The status is the last action and its outcome. Every action is `pending`
 * until its transaction lands on the sandbox clock (ACTION_DELAY_MS later),
 * and only one action is pending at a time (another is refused with
 * payment_session_action_pending), so the balances change only when an action
 * lands: authorization → capturable; capture → captured (and refundable);
 * void → capturable to 0; refund → refunded. A session holds at most one
 * authorization. Deadlines (expiries) refuse their action once passed; they
 * never move the session by themselves.
 *
 * A session and its actions are one record (the view nests them); the
 * pending action's landing time is the record's due time.
 */
import type { components } from "../../contract/generated/types.js";
import type { Schema } from "../../contract/types.js";
import { apiError } from "../../errors/catalogue.js";
import { declareCollection } from "../../store/collections.js";
import type { Collection, ProjectTx, Store } from "../../store/store.js";
import { custodialAsset } from "../shared/custodialAssets.js";
import { fromUnits } from "../shared/decimal.js";

type Schemas = components["schemas"];

/** How long an action's transaction takes to land: one Base block. */
export const ACTION_DELAY_MS = 2_000;

export type ActionKind = "authorization" | "capture" | "void" | "refund";
type ActionStatus = Schemas["PaymentActionStatus"];

/** A signed EIP-3009 transfer of the payer's funds into the escrow, executed when the authorization lands. */
export interface Eip3009Transfer {
  token: `0x${string}`;
  from: `0x${string}`;
  to: `0x${string}`;
  value: string;
  validAfter: string;
  validBefore: string;
  nonce: `0x${string}`;
  signature: `0x${string}`;
}

interface ActionBase {
  id: string;
  status: ActionStatus;
  /** Smallest units of the session's asset. */
  units: string;
  metadata?: Record<string, string>;
  externalReferenceId?: string;
  customerDisplay?: Schemas["OperationCustomerDisplay"];
  error?: Schemas["PaymentError"];
  onchainTransactions?: Schemas["OnchainTransaction"][];
  createdAt: string;
  updatedAt: string;
  /** When its transaction lands (sandbox clock). */
  landsAtMs: number;
}

export interface WalletAuthorizationRecord extends ActionBase {
  kind: "wallet" | "x402";
  source: Schemas["PaymentSourceWallet"];
  transfer: Eip3009Transfer;
  /** The hash its transaction gets (an x402 payer is told it at once). */
  hash: `0x${string}`;
  message?: string;
}

/** Paid from a Coinbase account: the amount is held in the payer's Coinbase balance from the moment it is made. */
export interface CoinbaseAuthorizationRecord extends ActionBase {
  kind: "coinbase";
  source: Schemas["PaymentSourceCoinbase"];
  message?: string;
}

export type AuthorizationRecord = WalletAuthorizationRecord | CoinbaseAuthorizationRecord;

export interface CaptureRecord extends ActionBase {
  finalCapture: boolean;
}

export type VoidRecord = ActionBase;

export interface RefundRecord extends ActionBase {
  source: Schemas["RefundSource"];
  reason?: string;
  /** A custodial source's amount is held from creation until the refund lands. */
  held?: boolean;
}

export interface PaymentSessionRecord {
  paymentSessionId: string;
  entityId: string;
  /** Lowercase symbol, e.g. usdc. */
  asset: string;
  units: string;
  target: Schemas["PaymentSessionTarget"];
  /** Wallet targets: the network paid on (base when the target leaves it out) and the token contract of `asset` there. */
  network?: string;
  token?: `0x${string}`;
  autoCapture: boolean;
  expiries: { authorizationExpiresAt: string; captureExpiresAt: string; refundExpiresAt: string };
  status: Schemas["PaymentSessionStatus"];
  /** Running totals in smallest units. */
  capturable: string;
  captured: string;
  refunded: string;
  source?: Schemas["PaymentSessionSource"];
  authorizations: AuthorizationRecord[];
  captures: CaptureRecord[];
  voids: VoidRecord[];
  refunds: RefundRecord[];
  url: string;
  x402Url?: string;
  redirect?: Schemas["PaymentRedirect"];
  customerDisplay?: Schemas["CustomerDisplay"];
  metadata?: Record<string, string>;
  externalReferenceId?: string;
  cancellationReason?: string;
  createdAt: string;
  updatedAt: string;
  /** The pending action, if any: which list it is in, when it lands, and its place in the project's queue. */
  pending?: PendingAction;
}

export interface PendingAction {
  kind: ActionKind;
  id: string;
  landsAtMs: number;
  /** Actions due at the same time land in the order they were submitted (two authorizations spending the same funds). */
  seq: number;
}

const ACTION_QUEUE = declareCollection<{ n: number }>("paymentSessionActionQueue");

/** The pending action of `kind`, queued behind every action submitted before it. */
export function queueAction(store: ProjectTx, kind: ActionKind, id: string, landsAtMs: number): PendingAction {
  const queue = store.collection(ACTION_QUEUE);
  const seq = (queue.get("last")?.n ?? 0) + 1;
  queue.put("last", { n: seq });
  return { kind, id, landsAtMs, seq };
}

export const PAYMENT_SESSIONS = declareCollection<PaymentSessionRecord>("paymentSessions", {
  order: "insertion",
  dueAt: (s) => s.pending?.landsAtMs,
});

export const paymentSessions = (store: ProjectTx): Collection<PaymentSessionRecord> => store.collection(PAYMENT_SESSIONS);

export function findPaymentSession(store: ProjectTx, paymentSessionId: string): PaymentSessionRecord {
  const record = paymentSessions(store).get(paymentSessionId);
  if (!record) throw apiError("not_found", `Payment session ${paymentSessionId} was not found.`);
  return record;
}

/**
 * The project a payment session belongs to. The payer's operations (wallet options and authorization, x402) carry
 * no API key, so the pipeline finds the merchant's project by the session id, as the platform finds the session.
 */
export function projectOfPaymentSession(store: Store, paymentSessionId: string): string | undefined {
  return store.projects().find((p) => store.committedRecord(p.id, PAYMENT_SESSIONS, paymentSessionId) !== undefined)?.id;
}

/**
 * What the payer is shown for an action: its own reference code, else the session's order code. The merchant's
 * externalReferenceId of the action, when given, is kept beside it.
 */
export function actionLabels(
  s: PaymentSessionRecord,
  given: { externalReferenceId?: string; customerDisplay?: Schemas["OperationCustomerDisplay"] } | undefined,
): Pick<ActionBase, "externalReferenceId" | "customerDisplay"> {
  const referenceCode = given?.customerDisplay?.referenceCode ?? s.customerDisplay?.orderCode;
  return {
    ...optional("externalReferenceId", given?.externalReferenceId),
    ...(referenceCode !== undefined ? { customerDisplay: { referenceCode } } : {}),
  };
}

/** An amount of the session's asset as the platform writes it: "0", or two decimals at least ("1.00", "0.125"). */
export function amountText(units: bigint, asset: string): string {
  return units === 0n ? "0" : fromUnits(units, custodialAsset(asset)!);
}

const optional = <K extends string, V>(key: K, value: V | undefined) => (value === undefined ? {} : ({ [key]: value } as { [P in K]: V }));

function actionFields(s: PaymentSessionRecord, a: ActionBase) {
  return {
    paymentSessionId: s.paymentSessionId,
    status: a.status,
    amount: amountText(BigInt(a.units), s.asset),
    ...optional("error", a.error),
    ...optional("metadata", a.metadata),
    ...optional("externalReferenceId", a.externalReferenceId),
    ...optional("customerDisplay", a.customerDisplay),
    ...optional("onchainTransactions", a.onchainTransactions),
    createdAt: a.createdAt,
    updatedAt: a.updatedAt,
  };
}

export const authorizationView = (s: PaymentSessionRecord, a: AuthorizationRecord): Schema<"Authorization"> => ({
  authorizationId: a.id,
  ...actionFields(s, a),
  ...optional("message", a.message),
  source: a.source,
});

export const captureView = (s: PaymentSessionRecord, c: CaptureRecord): Schema<"Capture"> => ({
  captureId: c.id,
  ...actionFields(s, c),
  finalCapture: c.finalCapture,
});

export const voidView = (s: PaymentSessionRecord, v: VoidRecord): Schema<"Void"> => ({ voidId: v.id, ...actionFields(s, v) });

export const refundView = (s: PaymentSessionRecord, r: RefundRecord): Schema<"Refund"> => ({
  refundId: r.id,
  source: r.source,
  ...actionFields(s, r),
  ...optional("reason", r.reason),
});

function balancesView(s: PaymentSessionRecord): Schema<"PaymentSessionBalances"> {
  const captured = BigInt(s.captured);
  const refunded = BigInt(s.refunded);
  return {
    capturable: amountText(BigInt(s.capturable), s.asset),
    captured: amountText(captured, s.asset),
    refundable: amountText(captured - refunded, s.asset),
    refunded: amountText(refunded, s.asset),
  };
}

/** The fields every view of the session shares (the webhook events' summary has no action lists). */
export function sessionSummary(s: PaymentSessionRecord) {
  return {
    paymentSessionId: s.paymentSessionId,
    entityId: s.entityId,
    amount: amountText(BigInt(s.units), s.asset),
    asset: s.asset,
    ...optional("source", s.source),
    target: s.target,
    autoCapture: s.autoCapture,
    expiries: s.expiries,
    status: s.status,
    balances: balancesView(s),
    ...optional("externalReferenceId", s.externalReferenceId),
    ...optional("customerDisplay", s.customerDisplay),
    ...optional("metadata", s.metadata),
    createdAt: s.createdAt,
    updatedAt: s.updatedAt,
  };
}

export function paymentSessionView(s: PaymentSessionRecord): Schema<"PaymentSession"> {
  const list = <T>(items: T[]) => (items.length > 0 ? items : undefined);
  return {
    ...sessionSummary(s),
    ...optional("authorizations", list(s.authorizations.map((a) => authorizationView(s, a)))),
    ...optional("captures", list(s.captures.map((c) => captureView(s, c)))),
    ...optional("voids", list(s.voids.map((v) => voidView(s, v)))),
    ...optional("refunds", list(s.refunds.map((r) => refundView(s, r)))),
    url: s.url,
    ...optional("x402Url", s.x402Url),
    ...optional("redirect", s.redirect),
    ...optional("cancellationReason", s.cancellationReason),
  };
}

/** The Coinbase user who paid the session, when a Coinbase account authorized it. */
export const coinbasePayerOf = (s: PaymentSessionRecord): string | undefined =>
  s.source && "coinbaseUserId" in s.source ? s.source.coinbaseUserId : undefined;

/** The address that paid the session from a wallet. */
export const payerAddressOf = (s: PaymentSessionRecord): string => (s.source && "address" in s.source ? s.source.address : "");

/**
 * Refuses an action on a session that is canceled or has an action pending; every action checks this first.
 * `what` names the action for the message.
 */
export function requireIdle(s: PaymentSessionRecord, what: string): void {
  if (s.status === "canceled") {
    throw apiError("payment_session_already_canceled", `Payment session ${s.paymentSessionId} was canceled; it cannot ${what}. Create a new session.`);
  }
  if (s.pending) {
    throw apiError(
      "payment_session_action_pending",
      `Payment session ${s.paymentSessionId} has a ${s.pending.kind} (${s.pending.id}) still pending until ${new Date(s.pending.landsAtMs).toISOString()}; it cannot ${what} before that lands.`,
    );
  }
}
