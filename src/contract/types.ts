/**
 * Types read from a contract's generated types (`npm run types:contract`
 * makes them from openapi.yaml and admin-openapi.yaml), so a handler's
 * parameters, body and answer follow the contract and drift fails the typecheck.
 * Each type takes the document's `operations` interface and an operationId.
 *
 * @example
 *   const view: ResponseBody<"getEvmAccount", 200> = accountView(record);
 *   const network: Schema<"EvmEip7702DelegationNetwork"> = req.body.network;
 */
import type { components, operations } from "./generated/types.js";

export type OperationId = keyof operations;

/** The JSON of a request body or a response, `never` where there is none. */
type JsonOf<T> = T extends { content: { "application/json": infer B } } ? B : never;

type ParametersOf<Ops, Id extends keyof Ops, Where extends "path" | "query"> = Ops[Id] extends { parameters: infer P }
  ? P extends { [K in Where]?: infer X }
    ? NonNullable<X>
    : never
  : never;

/** The path parameters, decoded; the router only matches when every one is present. */
export type PathParamsOf<Ops, Id extends keyof Ops> = [ParametersOf<Ops, Id, "path">] extends [never]
  ? Record<never, string>
  : { readonly [K in keyof ParametersOf<Ops, Id, "path">]-?: string };

/** The query parameters as the URL carries them: text, or a list when the name repeats. */
export type QueryParamsOf<Ops, Id extends keyof Ops> = [ParametersOf<Ops, Id, "query">] extends [never]
  ? Record<never, string>
  : { readonly [K in keyof ParametersOf<Ops, Id, "query">]: string | string[] };

/** The JSON body the operation declares (whether or not the body is required), `never` when it declares none. */
export type RequestBodyOf<Ops, Id extends keyof Ops> = Ops[Id] extends { requestBody?: infer R } ? JsonOf<NonNullable<R>> : never;

type Responses<Ops, Id extends keyof Ops> = Ops[Id] extends { responses: infer R } ? R : never;

/**
 * The statuses a handler answers with: the operation's successes and redirects, and any
 * other status it declares with a body of its own (x402's refused payments
 * are a 400 with the protocol's body). Statuses whose body is the platform's
 * error body are thrown as catalogue errors instead.
 */
type AnswerStatus<Ops, Id extends keyof Ops> = {
  [S in keyof Responses<Ops, Id>]: S extends 200 | 201 | 202 | 203 | 204 | 206 | 302 | 303
    ? S
    : S extends number
      ? [JsonOf<Responses<Ops, Id>[S]>] extends [never]
        ? never
        : JsonOf<Responses<Ops, Id>[S]> extends { errorType: string }
          ? never
          : S
      : never;
}[keyof Responses<Ops, Id>];

/** One answer of the operation: a status it declares with exactly the body the contract gives that status. */
export type AnswerOf<Ops, Id extends keyof Ops> = {
  [S in AnswerStatus<Ops, Id>]: [JsonOf<Responses<Ops, Id>[S]>] extends [never]
    ? { status: S; body?: undefined; headers?: Record<string, string> }
    : { status: S; body: JsonOf<Responses<Ops, Id>[S]>; headers?: Record<string, string> };
}[AnswerStatus<Ops, Id>];

/** The platform's request body of an operation. */
export type RequestBody<Op extends OperationId> = RequestBodyOf<operations, Op>;

export type ResponseBody<Op extends OperationId, Status extends number> = Status extends keyof Responses<operations, Op>
  ? JsonOf<Responses<operations, Op>[Status]>
  : never;

/** A named schema of the platform's contract, e.g. `Schema<"EvmAccount">`. */
export type Schema<Name extends keyof components["schemas"]> = components["schemas"][Name];
