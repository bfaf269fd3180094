/// <reference lib="dom" />
/** Webhook subscriptions and their deliveries: payload, attempts, next retry, and a button to send one again. */
import { type Answer, api, query } from "../api.js";
import { badge, fill, h, pre, table, time } from "../dom.js";
import type { Shell, View } from "../view.js";

type Delivery = Answer<"listSandboxWebhookDeliveries">["deliveries"][number];
const LIMIT = 100;

export function webhooksView(shell: Shell): View {
  const subs = h("div", { class: "results" });
  const list = h("div", { class: "results" });
  /** Deliveries the user opened stay open when the list is drawn again. */
  const open = new Set<string>();

  async function replay(d: Delivery): Promise<void> {
    try {
      const after = await api<"replaySandboxWebhookDelivery">(
        "POST",
        `/webhooks/${encodeURIComponent(d.subscriptionId)}/events/${encodeURIComponent(d.eventId)}/replay`,
      );
      shell.say(`Delivery of ${d.eventTypeName} sent again: attempt ${(after.attempts ?? []).length}, ${after.status}.`);
      await shell.poke();
    } catch (error) {
      shell.say((error as Error).message, "error");
    }
  }

  const delivery = (d: Delivery) => {
    const key = `${d.subscriptionId}|${d.eventId}`;
    const details = h(
      "details",
      { class: "delivery", open: open.has(key), ontoggle: (e: Event) => ((e.target as HTMLDetailsElement).open ? open.add(key) : open.delete(key)) },
      h(
        "summary",
        {},
        badge(d.status),
        ` ${d.eventTypeName} `,
        h("span", { class: "muted" }, `${(d.attempts ?? []).length} attempt${(d.attempts ?? []).length === 1 ? "" : "s"} · `),
        time(d.createdAt),
      ),
      h(
        "div",
        {},
        h(
          "p",
          {},
          h("button", { type: "button", onclick: () => void replay(d), "aria-label": `Replay delivery of ${d.eventTypeName} (${d.eventId})` }, "Replay"),
        ),
        d.nextAttemptAt ? h("p", {}, "Next retry: ", time(d.nextAttemptAt)) : null,
        h("h4", {}, "Attempts"),
        table(
          "Attempts",
          [
            ["#", (_a) => ""],
            ["At", (a) => time(a.at)],
            ["HTTP", (a) => (a.httpCode === undefined ? "" : String(a.httpCode))],
            ["Error", (a) => a.errorName ?? ""],
            ["Took", (a) => `${a.elapsedTimeMs} ms`],
            ["Answer", (a) => (a.body ? pre(a.body) : "")],
            [
              "Headers sent (signature included)",
              (a) => (a.headers ? h("details", {}, h("summary", {}, a.headers["X-Hook0-Signature"] ? "X-Hook0-Signature …" : "headers"), pre(a.headers)) : ""),
            ],
          ],
          d.attempts ?? [],
          "Not attempted yet.",
        ),
        h("h4", {}, "Payload"),
        pre(d.payload),
      ),
    );
    for (const [i, cell] of [...details.querySelectorAll("tbody tr td:first-child")].entries()) cell.textContent = String(i + 1);
    return h("li", {}, details);
  };

  async function load(): Promise<void> {
    const [s, d] = await Promise.all([
      api<"listSandboxWebhookSubscriptions">("GET", "/webhooks/subscriptions"),
      api<"listSandboxWebhookDeliveries">("GET", `/webhooks/deliveries${query({ limit: LIMIT })}`),
    ]);
    fill(
      subs,
      table(
        "Webhook subscriptions",
        [
          ["Subscription", (x) => h("span", { class: "mono" }, x.subscriptionId)],
          ["Target", (x) => h("span", { class: "mono" }, x.target.url)],
          ["Events", (x) => x.eventTypes.join(", ")],
          ["Enabled", (x) => badge(x.isEnabled ? "enabled" : "disabled")],
          ["Deliveries", (x) => `${x.deliveries.total} (${x.deliveries.succeeded} ok, ${x.deliveries.retrying} retrying, ${x.deliveries.failed} failed)`],
        ],
        s.subscriptions,
        "No webhook subscription in this project.",
      ),
    );
    fill(
      list,
      d.deliveries.length === 0
        ? h("p", { class: "empty" }, "No delivery yet.")
        : h("ul", { class: "plain deliveries", "aria-label": "Deliveries" }, ...d.deliveries.map(delivery)),
    );
  }

  return {
    async mount(root) {
      fill(root, h("h2", {}, "Webhook subscriptions"), subs, h("h2", {}, "Deliveries"), list);
      await load();
    },
    refresh: load,
  };
}
