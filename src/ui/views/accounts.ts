/// <reference lib="dom" />
/** Accounts of each kind — EVM, Solana, smart accounts, end users — with their balances per network and token, a page at a time. */
import { type Answer, api, query } from "../api.js";
import { addressLink, field, fill, h, pager, table, time } from "../dom.js";
import type { Shell, View } from "../view.js";

type Page = Answer<"listSandboxAccounts">;
type Item = Page["items"][number];
const KINDS = [
  ["evm", "EVM accounts"],
  ["solana", "Solana accounts"],
  ["smart", "Smart accounts"],
  ["endUser", "End users"],
] as const;
const LIMIT = 50;

const balanceList = (balances: Item["balances"]) =>
  balances.length === 0
    ? h("span", { class: "muted" }, "no balance")
    : h("ul", { class: "balances" }, ...balances.map((b) => h("li", {}, `${b.formatted} ${b.token} `, h("span", { class: "muted" }, `on ${b.network}`))));

export function accountsView(shell: Shell): View {
  let kind: (typeof KINDS)[number][0] = "evm";
  let offset = 0;
  const results = h("div", { class: "results" });
  const search = h("input", { type: "search", placeholder: "address, name or user id" });
  const tabs = h("div", { role: "group", "aria-label": "Kind of account", class: "tabs" });

  async function load(): Promise<void> {
    const page = await api<"listSandboxAccounts">("GET", `/accounts${query({ kind, offset, limit: LIMIT, q: search.value.trim() })}`);
    const label = KINDS.find(([k]) => k === kind)![1];
    const columns: Array<[string, (a: Item) => Node | string | Array<Node | string>]> =
      kind === "endUser"
        ? [
            ["User", (a) => a.userId ?? ""],
            ["Created", (a) => time(a.createdAt)],
            [
              "Accounts and balances",
              (a) =>
                h("ul", { class: "plain" }, ...(a.accounts ?? []).map((x) => h("li", {}, `${x.kind} `, addressLink(x.address), " ", balanceList(x.balances)))),
            ],
          ]
        : [
            ["Address", (a) => addressLink(a.address ?? "")],
            ["Name", (a) => a.name ?? ""],
            ["Balances", (a) => balanceList(a.balances)],
            ["Policies", (a) => (a.policies ?? []).join(", ")],
            ...(kind === "smart" ? [["Owners", (a: Item) => (a.owners ?? []).map((o) => addressLink(o))] as [string, (a: Item) => Node[]]] : []),
            ["Created", (a) => time(a.createdAt)],
          ];
    fill(results, table(label, columns, page.items, `No ${label.toLowerCase()} in this project.`), pager(page.total, page.offset, LIMIT, go, label));
    for (const b of tabs.querySelectorAll("button")) b.setAttribute("aria-pressed", String(b.dataset.kind === kind));
  }

  const go = (next: number) => {
    offset = next;
    load().catch((e: Error) => shell.say(e.message, "error"));
  };

  return {
    async mount(root) {
      fill(
        tabs,
        ...KINDS.map(([k, label]) =>
          h(
            "button",
            {
              type: "button",
              "data-kind": k,
              "aria-pressed": String(k === kind),
              onclick: () => {
                kind = k;
                go(0);
              },
            },
            label,
          ),
        ),
      );
      let typing: ReturnType<typeof setTimeout> | undefined;
      search.addEventListener("input", () => {
        clearTimeout(typing);
        typing = setTimeout(() => go(0), 250);
      });
      fill(root, h("h2", {}, "Accounts"), tabs, h("div", { class: "toolbar" }, field("Search accounts", search)), results);
      await load();
    },
    refresh: load,
  };
}
