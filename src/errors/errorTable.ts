/**
 * The rows of the platform's own error table: the error cases its documentation lists with a status and a
 * condition, as opposed to the errorTypes only the contract names (OTP, transfers, payment sessions...). Contract
 * coverage reports which rows a run reproduced: a client's suite that never saw a 401, a 429 or a 503 has not
 * tested how it handles them. A row is reproduced by an answer with its status and errorType, whatever produced
 * it (the state, a scenario, the caller's own mistake).
 */
import { catalogue, type ErrorCase } from "./catalogue.js";

/** Each row's case, in the table's order; a case's status and errorType come from the catalogue. */
const ROWS: readonly ErrorCase[] = [
  "invalid_request",
  "malformed_transaction",
  "invalid_signature",
  "policy_in_use",
  "invalid_sql_query",
  "network_not_tradable",
  "guest_permission_denied",
  "guest_region_forbidden",
  "guest_transaction_limit",
  "guest_transaction_count",
  "phone_number_verification_expired",
  "unauthorized",
  "payment_method_required",
  "customer_not_authorized",
  "forbidden",
  "delegation_not_found",
  "delegation_expired",
  "delegation_revoked",
  "delegation_not_authorized",
  "delegation_not_enabled",
  "not_found",
  "timed_out",
  "already_exists",
  "idempotency_error",
  "rate_limit_exceeded",
  "faucet_limit_exceeded",
  "client_closed_request",
  "internal_server_error",
  "bad_gateway",
  "service_unavailable",
  "endpoint_unavailable",
  "gateway_timed_out",
];

export interface ErrorTableRow {
  /** The catalogue's name of the case (`gateway_timed_out` is the 504 row, whose errorType is timed_out). */
  case: ErrorCase;
  status: number;
  errorType: string;
}

/** The platform's error table, row by row. */
export const ERROR_TABLE: readonly ErrorTableRow[] = ROWS.map((name) => ({ case: name, status: catalogue[name].status, errorType: catalogue[name].errorType }));

/** The key an answer's status and errorType are counted under, and a row looked up by. */
export const errorKey = (status: number, errorType: string) => `${status} ${errorType}`;
