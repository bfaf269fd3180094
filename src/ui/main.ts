/// <reference lib="dom" />
/**
 * The dashboard: a header (project, clock), a navigation of views and the
 * view shown, chosen by the URL hash. It polls GET /_sandbox/overview once a
 * second; when a number there moved (a request, a block, a delivery, the
 * clock), the header and the view shown read their data again.
 */
import { AdminError, api, onTokenNeeded, setProject } from "./api.js";
import { fill, h } from "./dom.js";
import { clockControls } from "./clock.js";
import type { Overview, Shell, View } from "./view.js";
import { accountsView } from "./views/accounts.js";
import { clientRpcView } from "./views/clientRpc.js";
import { coverageView } from "./views/coverage.js";
import { endUsersView } from "./views/endUsers.js";
import { explorerView } from "./views/explorer.js";
import { inboxView } from "./views/inbox.js";
import { journalView } from "./views/journal.js";
import { policiesView } from "./views/policies.js";
import { scenariosView } from "./views/scenarios.js";
import { signingKeysView } from "./views/signingKeys.js";
import { stateView } from "./views/state.js";
import { transfersView } from "./views/transfers.js";
import { webhooksView } from "./views/webhooks.js";

const POLL_MS = 1000;
const PROJECT_KEY = "cdp-sandbox-project";

const VIEWS: Array<[string, string, (shell: Shell) => View]> = [
  ["accounts", "Accounts", accountsView],
  ["explorer", "Explorer", explorerView],
  ["transfers", "Transfers", transfersView],
  ["webhooks", "Webhooks", webhooksView],
  ["journal", "Journal", journalView],
  ["coverage", "Coverage", coverageView],
  ["policies", "Policies", policiesView],
  ["end-users", "End users", endUsersView],
  ["client-rpc", "Client RPC", clientRpcView],
  ["inbox", "Inbox", inboxView],
  ["scenarios", "Scenarios", scenariosView],
  ["signing-keys", "Request signing", signingKeysView],
  ["state", "Projects & state", stateView],
];

const status = h("p", { class: "status", role: "status", "aria-live": "polite" });
const main = h("main", { id: "main", tabindex: "-1" });
const nav = h("nav", { "aria-label": "Views" });
const projectSelect = h("select", { "aria-label": "Project" });
let current: { name: string; view: View } | undefined;
let lastSignature = "";
let lastOverview: Overview | undefined;

const shell: Shell = {
  say(message, kind = "ok") {
    status.className = `status status-${kind}`;
    status.textContent = message;
  },
  poke: () => poll(true),
  async projectsChanged(select) {
    if (select) sessionStorage.setItem(PROJECT_KEY, select);
    await loadProjects();
    await poll(true);
  },
};

const clock = clockControls(shell);

function signature(o: Overview): string {
  // Time running on its own changes nothing shown; time set, advanced or frozen does.
  const time = o.clock.frozen ? o.clock.now : String(Math.round(o.clock.offsetMs / 1000));
  return JSON.stringify([o.projectId, o.counts, o.journal.lastSequence, o.chains, o.webhooks, time]);
}

async function poll(force = false): Promise<void> {
  let overview: Overview;
  try {
    overview = await api<"getSandboxOverview">("GET", "/overview");
  } catch (error) {
    shell.say(`The sandbox does not answer: ${(error as Error).message}`, "error");
    return;
  }
  clock.show(overview.clock);
  lastOverview = overview;
  const sig = signature(overview);
  if (!force && sig === lastSignature) return;
  lastSignature = sig;
  await current?.view.refresh(overview).catch(report);
}

function report(error: unknown): void {
  shell.say(error instanceof AdminError ? `${error.errorType}: ${error.message}` : String((error as Error).message ?? error), "error");
}

async function loadProjects(): Promise<void> {
  const { projects } = await api<"listSandboxProjects">("GET", "/projects", { global: true });
  const saved = sessionStorage.getItem(PROJECT_KEY);
  const chosen = projects.find((p) => p.projectId === saved) ?? projects.find((p) => p.isDefault) ?? projects[0];
  fill(
    projectSelect,
    ...projects.map((p) =>
      h("option", { value: p.projectId, selected: p.projectId === chosen?.projectId }, `${p.name ?? p.projectId}${p.isDefault ? " (default)" : ""}`),
    ),
  );
  setProject(chosen?.projectId);
}

async function show(): Promise<void> {
  const [name = "accounts", ...rest] = location.hash.replace(/^#\/?/, "").split("/").map(decodeURIComponent);
  const entry = VIEWS.find(([key]) => key === name) ?? VIEWS[0]!;
  for (const link of nav.querySelectorAll("a")) {
    if (link.dataset.view === entry[0]) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
  const view = current?.name === entry[0] ? current.view : entry[2](shell);
  current = { name: entry[0], view };
  document.title = `${entry[1]} · cdp-sandbox`;
  main.replaceChildren();
  await view.mount(main, rest).catch(report);
  if (lastOverview) lastSignature = signature(lastOverview);
}

/** Asks for the admin token in a modal dialog; resolves with what was typed, or undefined when cancelled. */
function tokenDialog(): Promise<string | undefined> {
  const input = h("input", { type: "password", autocomplete: "off", required: true });
  const dialog = h(
    "dialog",
    { "aria-label": "Admin token" },
    h(
      "form",
      { method: "dialog" },
      h("p", {}, "This sandbox is reachable from the network, so its admin API needs the admin token it printed at start."),
      h("label", {}, "Admin token ", input),
      h(
        "p",
        {},
        h("button", { type: "submit", value: "ok" }, "Use token"),
        " ",
        h("button", { type: "submit", value: "cancel", formnovalidate: true }, "Cancel"),
      ),
    ),
  );
  document.body.append(dialog);
  dialog.showModal();
  return new Promise((resolve) => {
    dialog.addEventListener("close", () => {
      dialog.remove();
      resolve(dialog.returnValue === "ok" ? input.value : undefined);
    });
  });
}

async function start(): Promise<void> {
  onTokenNeeded(tokenDialog);
  const root = document.getElementById("app")!;
  fill(nav, h("ul", {}, ...VIEWS.map(([key, title]) => h("li", {}, h("a", { href: `#/${key}`, "data-view": key }, title)))));
  projectSelect.addEventListener("change", async () => {
    sessionStorage.setItem(PROJECT_KEY, projectSelect.value);
    setProject(projectSelect.value);
    await show();
    await poll(true);
  });
  fill(
    root,
    h("a", { href: "#main", class: "skip" }, "Skip to content"),
    h("header", {}, h("h1", {}, "cdp-sandbox"), h("span", { class: "field" }, projectSelect), clock.element),
    nav,
    status,
    main,
  );
  await loadProjects().catch(report);
  window.addEventListener("hashchange", () => void show());
  await poll(true);
  await show();
  document.body.dataset.ready = "true";
  // When the first view is drawn and answers input (bench/ui.mjs reads it).
  performance.mark("dashboard-ready");
  setInterval(() => {
    if (!document.hidden) void poll();
  }, POLL_MS);
}

void start();
