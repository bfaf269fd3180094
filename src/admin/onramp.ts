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
import {
  issuedPage,
  openOnrampPage,
  openPaymentLink,
  openUpgradePage,
  submitUpgradePage,
  verificationOutbox,
  type PageKind,
} from "../products/onramp/hostedPages.js";
import { apiError } from "../errors/catalogue.js";
import type { PendingTx } from "../store/store.js";
import { type AdminContext, type AdminHandler, page } from "./types.js";

const TITLES: Record<PageKind, string> = {
  buy: "Buy crypto",
  "apple-pay": "Pay with Apple Pay",
  "google-pay": "Pay with Google Pay",
  embedded: "Verify and pay",
  "limits-upgrade": "Raise your limits",
};

/** Runs `act` in a transaction of the project that issued the page's token, and commits it. */
async function onIssuer<T>(ctx: AdminContext, kind: PageKind, token: string, act: (tx: PendingTx) => T): Promise<T> {
  const project = ctx.store.projects().find((p) => issuedPage(ctx.store.begin(p.id), kind, token));
  if (!project) throw apiError("not_found", `No onramp ${kind} page has the token ${token}; use the URL exactly as the Onramp API returned it.`);
  const tx = ctx.store.begin(project.id);
  const result = act(tx);
  await tx.commit();
  return result;
}

export const openSandboxOnrampSessionPage: AdminHandler<"openSandboxOnrampSessionPage"> = page(
  () => TITLES.buy,
  async ({ query }, ctx) => {
    const token = String(query.sessionToken);
    return { status: 200, body: await onIssuer(ctx, "buy", token, (tx) => openOnrampPage({ store: tx, clock: ctx.clock }, token)) };
  },
);

export const openSandboxOnrampPaymentLink: AdminHandler<"openSandboxOnrampPaymentLink"> = page(
  ({ pathParams }) => TITLES[pathParams.wallet as PageKind],
  async ({ pathParams, query }, ctx) => {
    const kind = pathParams.wallet as "apple-pay" | "google-pay" | "embedded"; // the document's enum checked it
    const token = String(query.sessionToken);
    return { status: 200, body: await onIssuer(ctx, kind, token, (tx) => openPaymentLink({ store: tx, clock: ctx.clock }, kind, token)) };
  },
);

export const openSandboxOnrampUpgradePage: AdminHandler<"openSandboxOnrampUpgradePage"> = page(
  () => TITLES["limits-upgrade"],
  async ({ query }, ctx) => {
    const token = String(query.token);
    return { status: 200, body: await onIssuer(ctx, "limits-upgrade", token, (tx) => openUpgradePage({ store: tx, clock: ctx.clock }, token)) };
  },
);

/** The buyer submits the form (once, within the page's hour); the upgrade goes to review. */
export const submitSandboxOnrampUpgradePage: AdminHandler<"submitSandboxOnrampUpgradePage"> = page(
  () => TITLES["limits-upgrade"],
  async ({ query, body }, ctx) => {
    const token = String(query.token);
    return { status: 200, body: await onIssuer(ctx, "limits-upgrade", token, (tx) => submitUpgradePage({ store: tx, clock: ctx.clock }, token, body)) };
  },
);

/** The code the sandbox "sent": looked up in the caller's project, or in every project without a bearer token. */
export const getSandboxOnrampVerificationCode: AdminHandler<"getSandboxOnrampVerificationCode"> = page(
  () => "Verification code",
  async ({ projectId, pathParams }, ctx) => {
    const id = pathParams.verificationId;
    for (const scope of projectId ? [projectId] : ctx.store.projects().map((p) => p.id)) {
      const found = verificationOutbox(ctx.store.begin(scope), id);
      if (found) return { status: 200, body: found };
    }
    throw apiError("not_found", `Verification ${id} was not found${projectId ? " in this project" : ""}.`);
  },
);
