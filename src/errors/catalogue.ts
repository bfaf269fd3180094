/**
 * Every error case the sandbox can answer with, in one place: the platform's
 * error table plus the errorTypes of the contract. Domains and
 * pipeline stages throw `apiError(name, message?)`; only this file knows
 * statuses, default messages and documentation links.
 *
 * @example
 *   throw apiError("policy_violation", "policy pol_1 rule 2 rejected the transaction");
 */
export interface CatalogueEntry {
  status: number;
  errorType: string;
  message: string;
  /**
   * Body fields the platform's error table adds to this case, as an injected error (a scenario that gives no
   * `fields`) carries them: clients read them to recover.
   */
  injectedFields?: Readonly<Record<string, unknown>>;
}

const e = (status: number, message: string, errorType?: string, injectedFields?: Record<string, unknown>) => ({ status, message, errorType, injectedFields });

/** Keyed by case name; the name equals the errorType unless `errorType` says otherwise. */
const ENTRIES = {
  // 400
  invalid_request: e(400, "The request is invalid."),
  malformed_transaction: e(400, "The transaction could not be decoded."),
  invalid_signature: e(400, "The signature is invalid."),
  policy_in_use: e(400, "The policy is still referenced by a project or an account."),
  invalid_sql_query: e(400, "The SQL query is invalid."),
  network_not_tradable: e(400, "The asset cannot be bought on this network in the user's location."),
  guest_permission_denied: e(400, "This user may not make guest onramp transactions."),
  guest_region_forbidden: e(400, "Guest onramp is not available in the user's region."),
  guest_transaction_limit: e(400, "The weekly guest onramp limit has been reached."),
  guest_transaction_count: e(400, "The lifetime guest onramp transaction count has been reached."),
  phone_number_verification_expired: e(400, "The phone number must be verified again (every 60 days)."),
  policy_violation: e(403, "The request was rejected by a policy."),
  account_limit_exceeded: e(400, "The account limit has been reached."),
  unsupported_tos_language: e(400, "The terms of service language is not supported."),
  otp_verification_code_invalid: e(400, "The one-time code is invalid."),
  otp_verification_destination_mismatch: e(400, "The one-time code was sent to another destination."),
  otp_verification_expired: e(400, "The one-time code has expired."),
  otp_verification_invalid: e(400, "The verification is invalid."),
  otp_verification_not_found: e(404, "The verification was not found."),
  otp_verification_required: e(400, "A one-time code verification is required."),
  document_verification_failed: e(400, "Document verification failed."),
  recipient_allowlist_violation: e(400, "The recipient is not on the allowlist."),
  recipient_allowlist_pending: e(400, "The recipient allowlist entry is pending."),
  travel_rules_recipient_violation: e(400, "The recipient does not satisfy travel rule requirements."),
  travel_rules_field_missing: e(400, "A travel rule field is missing."),
  source_account_invalid: e(400, "The source account is invalid."),
  target_account_invalid: e(400, "The target account is invalid."),
  source_account_not_found: e(404, "The source account was not found."),
  target_account_not_found: e(404, "The target account was not found."),
  source_asset_not_supported: e(400, "The source asset is not supported."),
  target_asset_not_supported: e(400, "The target asset is not supported."),
  target_email_invalid: e(400, "The target email address is invalid."),
  target_onchain_address_invalid: e(400, "The target address is invalid for the selected network."),
  transfer_amount_invalid: e(400, "The transfer amount is invalid."),
  transfer_asset_not_supported: e(400, "The transfer asset is not supported."),
  transfer_quote_expired: e(400, "The fee quote has expired; create a new transfer."),
  insufficient_balance: e(400, "The balance is insufficient."),
  metadata_too_many_entries: e(400, "Metadata has too many entries."),
  metadata_key_too_long: e(400, "A metadata key is too long."),
  metadata_value_too_long: e(400, "A metadata value is too long."),
  asset_mismatch: e(400, "The assets do not match."),
  network_mismatch: e(400, "The networks do not match."),
  insufficient_liquidity: e(400, "There is not enough liquidity."),
  insufficient_allowance: e(400, "The token allowance is insufficient."),
  transaction_simulation_failed: e(400, "The transaction simulation failed."),
  mfa_invalid_code: e(400, "The MFA code is invalid."),
  mfa_flow_expired: e(400, "The MFA flow has expired."),
  mfa_already_enrolled: e(409, "MFA is already enrolled."),
  mfa_required: e(403, "MFA is required."),
  mfa_not_enrolled: e(400, "MFA is not enrolled."),
  // A Coinbase authorization's cb-authz-id that names no live challenge of the payer (unknown, used or expired).
  mfa_challenge_not_found: e(404, "The MFA challenge was not found."),
  settlement_failed: e(400, "The settlement failed."),
  // Payment sessions: refusals of an action the session's state or deadlines do not allow.
  authorization_expired: e(400, "The payment session's authorization deadline has passed."),
  capture_expired: e(400, "The payment session's capture deadline has passed."),
  refund_expired: e(400, "The payment session's refund deadline has passed."),
  payment_session_already_canceled: e(400, "The payment session was canceled."),
  payment_session_already_authorized: e(400, "The payment session is already authorized."),
  payment_session_action_pending: e(400, "Another action of the payment session is still pending."),
  no_capturable_balance: e(400, "The payment session has nothing left to capture."),
  no_voidable_balance: e(400, "The payment session holds nothing left to void."),
  no_refundable_balance: e(400, "The payment session has nothing left to refund."),
  // 401 / 402 / 403
  unauthorized: e(401, "Unauthorized."),
  payment_method_required: e(402, "A payment method is required."),
  payment_required: e(402, "Payment is required."),
  customer_not_authorized: e(403, "The customer lacks a required capability.", undefined, { unauthorizedCapabilities: ["transferStablecoin"] }),
  forbidden: e(403, "You do not have permission to access this resource."),
  delegation_not_found: e(403, "No active delegation grant covers this end user or account."),
  delegation_expired: e(403, "The delegation grant has expired."),
  delegation_revoked: e(403, "The delegation grant was revoked."),
  delegation_not_authorized: e(403, "The delegation grant does not cover this operation or address."),
  delegation_not_enabled: e(403, "Delegated signing is not enabled for this project."),
  // 404 / 408 / 409 / 422 / 429 / 499
  not_found: e(404, "The resource was not found."),
  timed_out: e(408, "The request timed out."),
  already_exists: e(409, "The resource already exists."),
  already_enabled: e(409, "Already enabled."),
  // No sandbox operation runs long enough to overlap another: only the shipped scenario operation-in-progress answers this.
  operation_in_progress: e(409, "Another operation on this resource is still in progress."),
  // The sandbox's own check (project setting strictRetries), never the platform's: a retried effect without its idempotency key.
  sandbox_duplicate_effect: e(409, "The request repeats an effect of this project without its idempotency key."),
  idempotency_error: e(422, "The idempotency key was already used with a different request."),
  // A well-formed request the operation cannot act on (the platform's 422 invalid_request).
  unprocessable_request: e(422, "The request cannot be processed as given.", "invalid_request"),
  rate_limit_exceeded: e(429, "Rate limit exceeded."),
  faucet_limit_exceeded: e(429, "Faucet limit exceeded."),
  client_closed_request: e(499, "The client closed the request."),
  request_canceled: e(499, "The request was canceled."),
  // 5xx
  internal_server_error: e(500, "An internal error occurred; the status of the operation is unknown."),
  bad_gateway: e(502, "The API could not reach the backend."),
  service_unavailable: e(503, "The service is temporarily unavailable."),
  endpoint_unavailable: e(503, "This endpoint is temporarily disabled."),
  gateway_timed_out: e(504, "The request timed out.", "timed_out"),
} satisfies Record<string, { status: number; message: string; errorType?: string; injectedFields?: Record<string, unknown> }>;

export type ErrorCase = keyof typeof ENTRIES;

export const catalogue: Record<ErrorCase, CatalogueEntry> = Object.fromEntries(
  Object.entries(ENTRIES).map(([name, v]) => [
    name,
    { status: v.status, message: v.message, errorType: v.errorType ?? name, ...(v.injectedFields ? { injectedFields: v.injectedFields } : {}) },
  ]),
) as Record<ErrorCase, CatalogueEntry>;

export function isErrorCase(name: string): name is ErrorCase {
  return Object.hasOwn(catalogue, name);
}

/** Where the platform documents an error type. */
function errorLinkFor(errorType: string): string {
  return `https://docs.cdp.coinbase.com/api-reference/v2/errors#${errorType.replace(/_/g, "-")}`;
}

/** An error the sandbox answers with; carries everything needed to write the platform's error body. */
export class ApiError extends Error {
  readonly status: number;
  readonly errorType: string;
  /** Extra body fields, e.g. `unauthorizedCapabilities`. */
  readonly extra: Record<string, unknown>;
  readonly headers: Record<string, string>;
  /**
   * The refusal itself is a state change that must land (a wrong one-time code counts towards locking its flow):
   * the pipeline commits the request's writes instead of discarding them. Set with `keepingWrites`.
   */
  keepWrites = false;
  constructor(status: number, errorType: string, message: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.errorType = errorType;
    this.extra = extra;
    this.headers = headers;
  }
  /** The platform's error body. */
  body(correlationId: string): Record<string, unknown> {
    return { errorType: this.errorType, errorMessage: this.message, correlationId, errorLink: errorLinkFor(this.errorType), ...this.extra };
  }
}

/** The same refusal, with the request's writes committed (see ApiError.keepWrites). */
export function keepingWrites(error: ApiError): ApiError {
  error.keepWrites = true;
  return error;
}

/**
 * The same refusal under another status, for an operation whose contract does not declare the catalogue's status
 * (the errorType, message and link, which clients decide by, stay as they are).
 */
export function withStatus(error: ApiError, status: number): ApiError {
  const restated = new ApiError(status, error.errorType, error.message, error.extra, error.headers);
  restated.keepWrites = error.keepWrites;
  return restated;
}

/** Builds the catalogue error `name`, with an optional specific message and extra body fields. */
export function apiError(name: ErrorCase, message?: string, extra?: Record<string, unknown>, headers?: Record<string, string>): ApiError {
  const entry = catalogue[name];
  return new ApiError(entry.status, entry.errorType, message ?? entry.message, extra, headers);
}

/** Characters of a caller's value a message repeats whole: the longest id the contract allows (a wallet secret's is 100). */
const SHOWN_WHOLE = 100;

/**
 * A value the caller sent, as an error message names it: whole when it is id-sized, else its start and its length. A
 * value checked before the body's schema (an end user's `walletSecretId`, read by the signature check) can be
 * megabytes, and an answer that repeated it was as large as the request and held the event loop to build and check.
 */
export function shownValue(value: string): string {
  return value.length <= SHOWN_WHOLE ? value : `${value.slice(0, 32)}… (${value.length.toLocaleString("en-US")} characters)`;
}
