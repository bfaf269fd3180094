/// <reference lib="dom" />
/**
 * The request journal, live: the newest requests first, filtered by door
 * (platform API, admin API, JSON-RPC node, WebSocket), status, operation and
 * text; new ones are read with `after=` the newest sequence number seen.
 * Opening a request shows its request and response, with what the sandbox
 * decided on the way (validation problems, policy decisions, where its EVM
 * runs reverted). The whole journal
 * downloads as a HAR file for Chrome DevTools.
 */
import { type Answer, api, query } from "../api.js";
import { addressLink, badge, field, fill, h, pre, table, time, txLink } from "../dom.js";
import type { Shell, View } from "../view.js";

type Entry = Answer<"listSandboxRequests">["requests"][number];
const LIMIT = 100;
const SHOWN = 500;

/** Revert data in a table cell: its selector and its size (the whole value is the cell's title). */
const revertData = (data: string) => (data.length <= 10 ? data : `${data.slice(0, 10)}… (${(data.length - 2) / 2} bytes)`);

const statusKind = (s: number) => (s === 0 ? "fault" : s >= 500 ? "5xx" : s >= 400 ? "4xx" : "2xx");

export function journalView(shell: Shell): View {
  let entries: Entry[] = [];
  let lastSequence = 0;
  let total = 0;
  const status = h(
    "select",
    {},
    ...[
      ["", "any"],
      ["2xx", "2xx"],
      ["4xx", "4xx"],
      ["5xx", "5xx"],
      ["error", "errors"],
    ].map(([v, t]) => h("option", { value: v! }, t!)),
  );
  const kind = h(
    "select",
    {},
    ...[
      ["", "every door"],
      ["platform", "platform API"],
      ["admin", "admin API"],
      ["node", "JSON-RPC node"],
      ["websocket", "WebSocket"],
    ].map(([v, t]) => h("option", { value: v! }, t!)),
  );
  const operation = h("input", { type: "text", placeholder: "createEvmAccount" });
  const text = h("input", { type: "search", placeholder: "path, error, problem…" });
  const rows = h("div", { class: "results" });
  const detail = h("section", { class: "detail", "aria-label": "Request detail" });

  const filters = () => ({ kind: kind.value, status: status.value, operationId: operation.value.trim(), q: text.value.trim() });

  function draw(): void {
    fill(
      rows,
      h("p", { class: "muted" }, `${total} matching request${total === 1 ? "" : "s"}${total > entries.length ? `, newest ${entries.length} shown` : ""}.`),
      table(
        "Requests",
        [
          ["#", (e) => String(e.sequence)],
          ["Time", (e) => time(e.time)],
          ["Request", (e) => h("a", { href: `#/journal/${encodeURIComponent(e.correlationId)}`, class: "mono" }, `${e.method} ${e.path}`)],
          ["Door", (e) => badge(e.kind)],
          ["Operation", (e) => e.rpcMethod ?? e.operationId ?? ""],
          ["Status", (e) => badge(e.status === 0 ? "fault" : String(e.status), statusKind(e.status))],
          ["Latency", (e) => `${Math.round((e.durationMs ?? 0) * 10) / 10} ms`],
          [
            "Notes",
            (e) => [
              ...(e.problems ?? []).map((p) => h("div", { class: "problem" }, `${p.location}: ${p.message}`)),
              ...(e.scenarios ?? []).map((s) => badge(`scenario ${s}`, "scenario")),
              e.mock ? badge("mock") : "",
              e.idempotentReplay ? badge("replay") : "",
              e.duplicateOf ? badge("duplicate") : "",
              e.errorType ? h("span", { class: "mono" }, e.errorType) : "",
              e.rpcError ? h("span", { class: "mono problem" }, `${e.rpcError.code} ${e.rpcError.message}`) : "",
            ],
          ],
        ],
        entries,
        "No request matches.",
      ),
    );
  }

  async function reload(): Promise<void> {
    const page = await api<"listSandboxRequests">("GET", `/requests${query({ ...filters(), limit: LIMIT })}`);
    entries = page.requests.slice().reverse();
    total = page.total ?? entries.length;
    lastSequence = page.lastSequence ?? 0;
    draw();
  }

  /** What came after the newest entry seen, put on top. */
  async function newer(): Promise<void> {
    const page = await api<"listSandboxRequests">("GET", `/requests${query({ ...filters(), after: lastSequence, limit: LIMIT })}`);
    lastSequence = page.lastSequence ?? lastSequence;
    if (page.requests.length === 0) return;
    entries = [...page.requests.slice().reverse(), ...entries].slice(0, SHOWN);
    total += page.total ?? page.requests.length;
    draw();
  }

  async function show(correlationId: string): Promise<void> {
    try {
      const found = await api<"getSandboxRequest">("GET", `/requests/${encodeURIComponent(correlationId)}`);
      const e = found.entry;
      fill(
        detail,
        h("h3", {}, `${e.method} ${e.path} → ${e.status}`),
        h("p", {}, h("a", { href: "#/journal" }, "Close")),
        h(
          "dl",
          { class: "facts" },
          ...[
            ["Correlation id", e.correlationId],
            ["Door", e.kind],
            ["Operation", e.operationId ?? "—"],
            ["JSON-RPC method", e.rpcMethod ?? "—"],
            ["JSON-RPC error", e.rpcError ? `${e.rpcError.code} ${e.rpcError.message}` : "—"],
            ["Auth", e.auth ?? "—"],
            ["Answered by", e.mock ? "the fallback mock" : "the sandbox"],
            ["Scenarios", (e.scenarios ?? []).join(", ") || "—"],
            ["Contract violation", e.violation ? `yes: the ${e.violation} check refused it` : "no"],
          ].flatMap(([k, v]) => [h("dt", {}, k!), h("dd", {}, v!)]),
        ),
        e.problems?.length
          ? h(
              "div",
              {},
              h("h4", {}, "Validation problems"),
              h("ul", {}, ...e.problems.map((p) => h("li", { class: "problem" }, `${p.location}: ${p.message}`))),
            )
          : null,
        e.policyDecisions?.length ? h("div", {}, h("h4", {}, "Policy decisions"), pre(e.policyDecisions)) : null,
        e.evmReverts?.length
          ? h(
              "div",
              {},
              h("h4", {}, "EVM reverts"),
              table(
                "Where the EVM runs of this request failed",
                [
                  ["Depth", (r) => String(r.depth)],
                  ["Contract", (r) => addressLink(r.address)],
                  ["Error", (r) => r.error],
                  ["Reason", (r) => r.reason ?? "—"],
                  ["Revert data", (r) => h("code", { class: "mono", title: r.data }, revertData(r.data))],
                  ["Tx", (r) => (r.transactionHash ? txLink(r.transactionHash) : "a call")],
                ],
                e.evmReverts,
              ),
            )
          : null,
        h("h4", {}, "Request"),
        found.request ? pre({ query: found.request.query, headers: found.request.headers }) : h("p", { class: "muted" }, "No longer kept."),
        found.request?.body ? pre(prettyJson(found.request.body)) : null,
        h("h4", {}, "Response"),
        found.response ? pre({ status: found.response.status, headers: found.response.headers }) : null,
        found.response?.body ? pre(prettyJson(found.response.body)) : null,
      );
      detail.querySelector("h3")?.setAttribute("tabindex", "-1");
      (detail.querySelector("h3") as HTMLElement | null)?.focus();
    } catch (error) {
      fill(detail, h("p", { class: "empty" }, (error as Error).message));
    }
  }

  return {
    async mount(root, route) {
      const form = h(
        "form",
        {
          class: "toolbar",
          role: "search",
          onsubmit: (e: Event) => {
            e.preventDefault();
            reload().catch((err: Error) => shell.say(err.message, "error"));
          },
        },
        field("Door", kind),
        field("Status", status),
        field("Operation", operation),
        field("Text", text),
        h("button", { type: "submit" }, "Filter"),
        h("button", { type: "button", onclick: () => void downloadHar().catch((err: Error) => shell.say(err.message, "error")) }, "Download HAR"),
      );
      status.addEventListener("change", () => void reload());
      kind.addEventListener("change", () => void reload());
      fill(root, h("h2", {}, "Request journal"), form, h("div", { class: "split" }, rows, detail));
      await reload();
      if (route[0]) await show(route[0]);
    },
    refresh: newer,
  };
}

/** The journal as a HAR file (GET /_sandbox/requests.har), saved by the browser. */
async function downloadHar(): Promise<void> {
  const har = await api<"getSandboxRequestsHar">("GET", "/requests.har");
  const link = h("a", { href: URL.createObjectURL(new Blob([JSON.stringify(har)], { type: "application/json" })), download: "cdp-sandbox.har" });
  link.click();
  URL.revokeObjectURL(link.getAttribute("href")!);
}

function prettyJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}
