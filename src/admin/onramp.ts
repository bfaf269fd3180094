/**
 * The onramp's hosted pages, as the sandbox serves them under
 * /_sandbox/onramp (the URLs the Onramp operations hand out point here):
 *
 *   GET  /buy?sessionToken=…             a session's single-use onramp page
 *   GET  /apple-pay|google-pay|embedded?sessionToken=…   an order's payment link
 *   GET  /limits-upgrade?token=…          the embedded limit-upgrade form
 *   POST /limits-upgrade?token=…          the buyer submits {ssnLast4, dateOfBirth}
 *   GET  /verifications/{verificationId}  the one-time code the sandbox "sent"
 *
 * Pages answer JSON, or a small HTML page when the caller prefers HTML (a
 * browser or webview); errors are the platform's error body. Links carry no
 * credentials, so the project is the one that issued the token.
 */
import express, { type Request, type Response } from "express";
import type { Clock } from "../clock.js";
import {
  issuedPage,
  openOnrampPage,
  openPaymentLink,
  openUpgradePage,
  submitUpgradePage,
  verificationOutbox,
  type PageKind,
} from "../domains/onramp/hostedPages.js";
import { apiError } from "../errors/catalogue.js";
import { parseBody } from "../pipeline/body.js";
import { errorResponse } from "../pipeline/errors.js";
import type { Random } from "../random.js";
import type { PendingTx, Store } from "../store/store.js";

export interface OnrampPagesDeps {
  store: Store;
  clock: Clock;
  random: Random;
  log: (message: string) => void;
  /** The project of a bearer token on the call, if any (scopes the outbox). */
  projectOf: (req: Request) => Promise<string | undefined>;
}

const TITLES: Record<PageKind, string> = {
  buy: "Buy crypto",
  "apple-pay": "Pay with Apple Pay",
  "google-pay": "Pay with Google Pay",
  embedded: "Verify and pay",
  "limits-upgrade": "Raise your limits",
};

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function htmlPage(title: string, body: unknown): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>${escapeHtml(title)} · cdp-sandbox</title></head><body><h1>${escapeHtml(title)}</h1><p>Simulated by cdp-sandbox.</p><pre>${escapeHtml(JSON.stringify(body, null, 2))}</pre></body></html>`;
}

export function createOnrampPagesRouter(deps: OnrampPagesDeps): express.Router {
  const router = express.Router();
  const correlation = deps.random.fork("admin-onramp-pages");

  const answer = (req: Request, res: Response, title: string, run: () => Promise<unknown>) => {
    const correlationId = `${correlation.hex(8)}-SBX`;
    const html = req.accepts(["json", "html"]) === "html";
    run().then(
      (body) => {
        res.set("x-correlation-id", correlationId);
        if (html) res.status(200).type("html").send(htmlPage(title, body));
        else res.status(200).json(body);
      },
      (error) => {
        const out = errorResponse(error, correlationId, deps.log);
        res.status(out.status).set(out.headers).set("x-correlation-id", correlationId).send(out.bodyText);
      },
    );
  };

  /** Runs `act` in a transaction of the project that issued the page's token, and commits it. */
  async function onIssuer<T>(kind: PageKind, req: Request, act: (tx: PendingTx, token: string) => T): Promise<T> {
    const param = kind === "limits-upgrade" ? "token" : "sessionToken";
    const token = typeof req.query[param] === "string" ? (req.query[param] as string) : "";
    if (!token) throw apiError("invalid_request", `This page needs the ?${param}= of the link the Onramp API returned.`);
    const project = deps.store.projects().find((p) => issuedPage(deps.store.begin(p.id), kind, token));
    if (!project) throw apiError("not_found", `No onramp ${kind} page has the token ${token}; use the URL exactly as the Onramp API returned it.`);
    const tx = deps.store.begin(project.id);
    const result = act(tx, token);
    await tx.commit();
    return result;
  }

  router.get("/buy", (req, res) =>
    answer(req, res, TITLES.buy, () => onIssuer("buy", req, (tx, token) => openOnrampPage({ store: tx, clock: deps.clock }, token))),
  );
  for (const kind of ["apple-pay", "google-pay", "embedded"] as const) {
    router.get(`/${kind}`, (req, res) =>
      answer(req, res, TITLES[kind], () => onIssuer(kind, req, (tx, token) => openPaymentLink({ store: tx, clock: deps.clock }, kind, token))),
    );
  }
  router.get("/limits-upgrade", (req, res) =>
    answer(req, res, TITLES["limits-upgrade"], () => onIssuer("limits-upgrade", req, (tx, token) => openUpgradePage({ store: tx, clock: deps.clock }, token))),
  );
  router.post("/limits-upgrade", (req, res) =>
    answer(req, res, TITLES["limits-upgrade"], async () => {
      const body = parseBody(Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0), req.headers["content-type"]);
      if (typeof body !== "object" || body === null || Array.isArray(body))
        throw apiError(
          "invalid_request",
          'Send the buyer\'s fields as JSON: {"ssnLast4": "5678", "dateOfBirth": {"day": "15", "month": "08", "year": "1990"}}.',
        );
      return onIssuer("limits-upgrade", req, (tx, token) => submitUpgradePage({ store: tx, clock: deps.clock }, token, body as Record<string, unknown>));
    }),
  );
  router.get("/verifications/:verificationId", (req, res) =>
    answer(req, res, "Verification code", async () => {
      const id = String(req.params.verificationId);
      const scoped = await deps.projectOf(req);
      const projects = scoped ? [scoped] : deps.store.projects().map((p) => p.id);
      for (const projectId of projects) {
        const found = verificationOutbox(deps.store.begin(projectId), id);
        if (found) return found;
      }
      throw apiError("not_found", `Verification ${id} was not found${scoped ? " in this project" : ""}.`);
    }),
  );
  return router;
}
