/**
 * Onramp v1 on the node's host: the paths OnchainKit's Fund components call with the client API key as a
 * bearer (`Authorization: Bearer <client key>`; the project id, the node's other token, works too), served by the onramp area (products/onramp/v1.ts). Public by
 * design like the JSON-RPC URL, so browsers on any origin may call them (CORS); a missing, unknown or rotated
 * key is 401 in the platform's error body.
 */
import express, { type Request, type Response } from "express";
import type { Clock } from "../clock.js";
import { buyConfig, buyOptions, buyQuote, userTransactions } from "../products/onramp/v1.js";
import { apiError } from "../errors/catalogue.js";
import { MAX_JSON_DEPTH, nestsDeeperThan } from "../pipeline/body.js";
import { errorResponse } from "../pipeline/errors.js";
import type { Random } from "../random.js";
import type { Store } from "../store/store.js";
import { nodeCors } from "./cors.js";
import { type ClientKeyIndex, nodeCaller } from "./nodeToken.js";

export interface OnrampV1Deps {
  store: Store;
  clock: Clock;
  random: Random;
  clientKeys: ClientKeyIndex;
}

type Answer = (projectId: string, req: Request) => unknown;

export function createOnrampV1Router(deps: OnrampV1Deps): express.Router {
  const router = express.Router();
  const correlationIds = deps.random.fork("onramp-v1-correlation");
  const quoteIds = deps.random.fork("onramp-v1-quotes");

  const serve =
    (answer: Answer) =>
    (req: Request, res: Response): void => {
      try {
        const bearer = /^Bearer (\S+)$/.exec(req.headers.authorization ?? "")?.[1];
        // The node's tokens: the client API key, or the project id (what `cdp-sandbox run` hands the register hook).
        const projectId = bearer === undefined ? undefined : nodeCaller(bearer, deps.store, deps.clientKeys)?.projectId;
        if (!projectId)
          throw apiError("unauthorized", "A client API key is required: Authorization: Bearer <client API key> (unknown or rotated keys are refused).");
        res.json(answer(projectId, req));
      } catch (error) {
        const correlationId = `${correlationIds.hex(8)}-SBX`;
        const out = errorResponse(error, correlationId);
        res.status(out.status).set(out.headers).set("x-correlation-id", correlationId).send(out.bodyText);
      }
    };

  const jsonBody = (req: Request): Record<string, unknown> => {
    const text = Buffer.isBuffer(req.body) ? req.body.toString("utf8") : "";
    if (nestsDeeperThan(text, MAX_JSON_DEPTH)) throw apiError("invalid_request", `The body nests deeper than ${MAX_JSON_DEPTH} levels.`);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text || "{}");
    } catch {
      throw apiError("invalid_request", "The body is not JSON.");
    }
    if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) throw apiError("invalid_request", "The body must be a JSON object.");
    return parsed as Record<string, unknown>;
  };

  router.use("/onramp/v1", nodeCors);
  router.get(
    "/onramp/v1/buy/config",
    serve(() => buyConfig()),
  );
  router.get(
    "/onramp/v1/buy/options",
    serve((_p, req) => buyOptions(req.query)),
  );
  router.post(
    "/onramp/v1/buy/quote",
    serve((_p, req) => buyQuote(jsonBody(req), quoteIds.uuid())),
  );
  router.get(
    "/onramp/v1/buy/user/:partnerUserId/transactions",
    serve((projectId, req) => userTransactions(deps.store.begin(projectId), deps.clock.now(), String(req.params.partnerUserId), req.query)),
  );
  return router;
}
