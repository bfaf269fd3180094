/// <reference lib="dom" />
/**
 * A block explorer over the project's chains: the latest blocks with their
 * decoded transactions, one transaction with its logs, one address with its
 * balances and transactions, and a search box for any hash or address.
 */
import { type Answer, api, query } from "../api.js";
import { addressLink, badge, field, fill, h, pre, table, time, txLink } from "../dom.js";
import type { Shell, View } from "../view.js";

type Tx = Answer<"listSandboxTransactions">["items"][number];

const txColumns: Array<[string, (t: Tx) => Node | string | Array<Node | string>]> = [
  ["Hash", (t) => txLink(t.hash)],
  ["Block", (t) => String(t.block)],
  ["Kind", (t) => badge(t.kind)],
  ["What", (t) => t.summary],
  ["From", (t) => addressLink(t.from)],
  ["To", (t) => (t.to ? addressLink(t.to) : "")],
  ["Status", (t) => badge(t.status)],
];

export function explorerView(shell: Shell): View {
  let route: string[] = [];
  let network: string | undefined;
  const body = h("div", { class: "results" });
  const search = h("input", { type: "search", placeholder: "0x… hash or address, or a Solana signature or address" });

  async function blocks(): Promise<void> {
    const page = await api<"listSandboxBlocks">("GET", `/chain/blocks${query({ network, limit: 20 })}`);
    network = page.network;
    const select = h(
      "select",
      {
        onchange: (e: Event) => {
          network = (e.target as HTMLSelectElement).value;
          void load();
        },
      },
      ...(page.networks.some((n) => n.network === page.network)
        ? page.networks
        : [{ network: page.network, head: page.head, transactions: 0 }, ...page.networks]
      ).map((n) => h("option", { value: n.network, selected: n.network === page.network }, `${n.network} (${n.transactions} transactions)`)),
    );
    fill(
      body,
      h("div", { class: "toolbar" }, field("Network", select), h("span", {}, `Head: block ${page.head}`)),
      page.blocks.length === 0
        ? h("p", { class: "empty" }, `No transaction of this project on ${page.network} yet.`)
        : h(
            "ol",
            { class: "blocks", "aria-label": "Blocks" },
            ...page.blocks.map((b) =>
              h("li", {}, h("h3", {}, `Block ${b.number} `, time(b.timestamp)), table(`Transactions of block ${b.number}`, txColumns, b.transactions)),
            ),
          ),
    );
  }

  async function transaction(hash: string): Promise<void> {
    const t = await api<"getSandboxTransaction">("GET", `/chain/transactions/${encodeURIComponent(hash)}`);
    const rows: Array<[string, Node | string | undefined]> = [
      ["Hash", h("span", { class: "mono" }, t.hash)],
      ["Network", t.network],
      ["Block", String(t.block)],
      ["Time", time(t.timestamp)],
      ["Kind", badge(t.kind)],
      ["Summary", t.summary],
      ["Status", badge(t.status)],
      ["Revert reason", t.revertReason],
      ["From", addressLink(t.from)],
      ["To", t.to ? addressLink(t.to) : undefined],
      ["Value", t.value],
      ["Nonce", t.nonce === undefined ? undefined : String(t.nonce)],
      ["Gas used", t.gasUsed],
      ["Fee (wei)", t.fee],
    ];
    fill(
      body,
      h("p", {}, h("a", { href: "#/explorer" }, "← Latest blocks")),
      h("h3", {}, "Transaction"),
      h("dl", { class: "facts" }, ...rows.filter(([, v]) => v !== undefined).flatMap(([k, v]) => [h("dt", {}, k), h("dd", {}, v!)])),
      t.tokenTransfers?.length
        ? table(
            "Token transfers",
            [
              ["Token", (m) => m.token],
              ["Amount", (m) => m.formatted],
              ["From", (m) => addressLink(m.from)],
              ["To", (m) => addressLink(m.to)],
            ],
            t.tokenTransfers,
          )
        : null,
      t.userOperation ? h("section", {}, h("h4", {}, "User operation"), pre(t.userOperation)) : null,
      t.x402 ? h("section", {}, h("h4", {}, "x402 payment"), pre(t.x402)) : null,
      t.logs?.length
        ? h(
            "section",
            {},
            h("h4", {}, "Logs"),
            table(
              "Logs",
              [
                ["#", (l) => String(l.logIndex)],
                ["Contract", (l) => addressLink(l.address)],
                ["Event", (l) => l.event ?? ""],
                ["Arguments", (l) => (l.args ? pre(l.args) : pre({ topics: l.topics, data: l.data }))],
              ],
              t.logs,
            ),
          )
        : null,
      t.input && t.input !== "0x" ? h("details", {}, h("summary", {}, "Input data"), pre(t.input)) : null,
    );
  }

  async function address(addr: string): Promise<void> {
    const a = await api<"getSandboxAddress">("GET", `/chain/addresses/${encodeURIComponent(addr)}`);
    fill(
      body,
      h("p", {}, h("a", { href: "#/explorer" }, "← Latest blocks")),
      h("h3", {}, "Address ", h("span", { class: "mono" }, a.address)),
      h("p", {}, a.labels.length ? a.labels.join(" · ") : "Not an account of this project."),
      h("h4", {}, "Balances"),
      table(
        "Balances",
        [
          ["Network", (b) => b.network],
          ["Token", (b) => b.token],
          ["Amount", (b) => b.formatted],
        ],
        a.balances,
        "No balance.",
      ),
      h("h4", {}, `Transactions (${a.totalTransactions})`),
      table("Transactions of the address", txColumns, a.transactions),
    );
  }

  async function load(): Promise<void> {
    const [kind, id] = route;
    if (kind === "tx" && id) await transaction(id);
    else if (kind === "address" && id) await address(id);
    else await blocks();
  }

  function find(e: Event): void {
    e.preventDefault();
    const value = search.value.trim();
    if (!value) return;
    // A 32-byte hex value or a long base-58 signature is a transaction; anything else is read as an address.
    location.hash = /^0x[0-9a-fA-F]{64}$/.test(value) || /^[1-9A-HJ-NP-Za-km-z]{60,90}$/.test(value) ? `#/explorer/tx/${value}` : `#/explorer/address/${value}`;
  }

  return {
    async mount(root, r) {
      route = r;
      fill(
        root,
        h("h2", {}, "Explorer"),
        h(
          "form",
          { class: "toolbar", role: "search", onsubmit: find },
          field("Find a transaction or address", search),
          h("button", { type: "submit" }, "Find"),
        ),
        body,
      );
      await load().catch((e: Error) => {
        fill(body, h("p", { class: "empty" }, e.message));
        shell.say(e.message, "error");
      });
    },
    refresh: load,
  };
}
