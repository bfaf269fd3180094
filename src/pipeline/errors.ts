/**
 * Every error anywhere leaves as the platform's error body with a JSON content
 * type. Unexpected exceptions become 500 internal_server_error with no stack.
 */
import { ApiError, apiError } from "../errors/catalogue.js";
import { jsonResponse, type Outgoing } from "./exchange.js";

export function errorResponse(error: unknown, correlationId: string, log?: (m: string) => void): Outgoing {
  const apiErr = error instanceof ApiError ? error : internal(error, log);
  return jsonResponse(apiErr.status, apiErr.body(correlationId), apiErr.headers);
}

function internal(error: unknown, log?: (m: string) => void): ApiError {
  log?.(`unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  return apiError("internal_server_error", "The sandbox hit an unexpected error; this is a sandbox defect, please report it.");
}
