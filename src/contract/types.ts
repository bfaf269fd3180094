/**
 * Handler-facing types generated from openapi.yaml (`npm run types:contract`),
 * so a handler's body and answer follow the contract and drift fails typecheck.
 *
 * @example
 *   const body = req.body as RequestBody<"createEvmAccount">;
 *   const view: ResponseBody<"getEvmAccount", 200> = evmAccountView(record);
 */
import type { operations } from "./generated/types.js";

export type OperationId = keyof operations;

type JsonOf<T> = T extends { content: { "application/json": infer B } } ? B : never;

export type RequestBody<Op extends OperationId> = operations[Op] extends { requestBody?: infer R } ? JsonOf<NonNullable<R>> : never;

export type ResponseBody<Op extends OperationId, Status extends number> = operations[Op] extends { responses: infer R }
  ? Status extends keyof R
    ? JsonOf<R[Status]>
    : never
  : never;
