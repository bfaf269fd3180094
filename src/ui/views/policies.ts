/// <reference lib="dom" />
/** Policies with their numbered rules and accounts, and which rule decided each recent signing. */
import { api } from "../api.js";
import { addressLink, badge, fill, h, pre, table, time } from "../dom.js";
import type { View } from "../view.js";

export function policiesView(): View {
  const results = h("div", { class: "results" });

  async function load(): Promise<void> {
    const { policies, decisions } = await api<"listSandboxPolicies">("GET", "/policies");
    fill(
      results,
      policies.length === 0
        ? h("p", { class: "empty" }, "No policy in this project.")
        : h(
            "ul",
            { class: "cards" },
            ...policies.map((p) =>
              h(
                "li",
                { class: "card" },
                h("h3", {}, badge(p.scope), " ", h("span", { class: "mono" }, p.policyId)),
                p.description ? h("p", {}, p.description) : null,
                h("ol", { class: "rules" }, ...p.rules.map((r) => h("li", {}, pre(r)))),
                p.accounts.length ? h("p", {}, "Attached to ", ...p.accounts.map((a) => addressLink(a))) : null,
              ),
            ),
          ),
      h("h2", {}, "Recent decisions"),
      table(
        "Recent policy decisions",
        [
          ["Time", (d) => time(d.time)],
          ["Request", (d) => h("a", { href: `#/journal/${encodeURIComponent(d.correlationId)}` }, d.operationId ?? d.correlationId)],
          ["Status", (d) => String(d.status)],
          [
            "Decided by",
            (d) =>
              h(
                "ul",
                { class: "plain" },
                ...d.decisions.map((x) =>
                  h(
                    "li",
                    {},
                    badge(x.action),
                    ` ${x.scope} policy `,
                    h("span", { class: "mono" }, x.policyId),
                    x.rule === undefined ? ": no rule matched" : `: rule ${x.rule}`,
                    ` (${x.operation})`,
                  ),
                ),
              ),
          ],
        ],
        decisions,
        "No signing has gone through a policy yet.",
      ),
    );
  }

  return {
    async mount(root) {
      fill(root, h("h2", {}, "Policies"), results);
      await load();
    },
    refresh: load,
  };
}
