/// <reference lib="dom" />
/** Transfers and onramp orders moving through their states on the sandbox clock, each with its timeline. */
import { type Answer, api, query } from "../api.js";
import { badge, fill, h, pager, table, time } from "../dom.js";
import type { Shell, View } from "../view.js";

type Step = Answer<"listSandboxTransfers">["items"][number]["timeline"][number];
const LIMIT = 50;

const timeline = (steps: Step[]) =>
  h(
    "ol",
    { class: "timeline" },
    ...steps.map((s) =>
      h(
        "li",
        { class: s.reached ? "reached" : "ahead" },
        badge(s.state.replace(/^ONRAMP_ORDER_STATUS_/, "").toLowerCase()),
        " ",
        time(s.at),
        s.reached ? "" : " (ahead)",
      ),
    ),
  );

const text = (v: unknown) => (typeof v === "string" || typeof v === "number" ? String(v) : "");

export function transfersView(shell: Shell): View {
  let offset = 0;
  const transfers = h("div", { class: "results" });
  const orders = h("div", { class: "results" });

  const go = (next: number) => {
    offset = next;
    load().catch((e: Error) => shell.say(e.message, "error"));
  };

  async function load(): Promise<void> {
    const [t, o] = await Promise.all([
      api<"listSandboxTransfers">("GET", `/transfers${query({ offset, limit: LIMIT })}`),
      api<"listSandboxOnrampOrders">("GET", `/onramp-orders${query({ limit: LIMIT })}`),
    ]);
    fill(
      transfers,
      table(
        "Transfers",
        [
          ["Transfer", (i) => h("span", { class: "mono" }, text(i.transfer.transferId))],
          ["State", (i) => badge(i.state)],
          [
            "Amount",
            (i) => `${text(i.transfer.sourceAmount)} ${text(i.transfer.sourceAsset)} → ${text(i.transfer.targetAmount)} ${text(i.transfer.targetAsset)}`,
          ],
          ["Timeline", (i) => timeline(i.timeline)],
        ],
        t.items,
        "No transfer in this project.",
      ),
      pager(t.total, t.offset, LIMIT, go, "Transfers"),
    );
    fill(
      orders,
      table(
        "Onramp orders",
        [
          ["Order", (i) => h("span", { class: "mono" }, text(i.order.orderId))],
          [
            "Status",
            (i) =>
              badge(
                text(i.order.status)
                  .replace(/^ONRAMP_ORDER_STATUS_/, "")
                  .toLowerCase(),
              ),
          ],
          ["Amount", (i) => `${text(i.order.purchaseAmount)} ${text(i.order.purchaseCurrency)}`],
          ["Timeline", (i) => timeline(i.timeline)],
        ],
        o.items,
        "No onramp order in this project.",
      ),
    );
  }

  return {
    async mount(root) {
      fill(root, h("h2", {}, "Transfers"), transfers, h("h2", {}, "Onramp orders"), orders);
      await load();
    },
    refresh: load,
  };
}
