/// <reference lib="dom" />
/** End users, their accounts and their delegation grants, each grant's state read on the sandbox clock. */
import { api, query } from "../api.js";
import { addressLink, badge, field, fill, h, pager, table, time } from "../dom.js";
import type { Shell, View } from "../view.js";

const LIMIT = 50;

export function endUsersView(shell: Shell): View {
  let offset = 0;
  const results = h("div", { class: "results" });
  const search = h("input", { type: "search", placeholder: "user id or address" });

  const go = (next: number) => {
    offset = next;
    load().catch((e: Error) => shell.say(e.message, "error"));
  };

  async function load(): Promise<void> {
    const page = await api<"listSandboxEndUsers">("GET", `/end-users${query({ offset, limit: LIMIT, q: search.value.trim() })}`);
    fill(
      results,
      table(
        "End users",
        [
          ["User", (u) => h("span", { class: "mono" }, u.userId)],
          ["Sign-in", (u) => u.authenticationMethods.join(", ")],
          [
            "Accounts",
            (u) => h("ul", { class: "plain" }, ...[...u.evmAccounts, ...u.evmSmartAccounts, ...u.solanaAccounts].map((a) => h("li", {}, addressLink(a)))),
          ],
          [
            "Delegation grants",
            (u) =>
              u.grants.length === 0
                ? h("span", { class: "muted" }, "none")
                : h(
                    "ul",
                    { class: "plain" },
                    ...u.grants.map((g) =>
                      h(
                        "li",
                        {},
                        badge(g.state),
                        ` ${g.scope === "project" ? "every account" : ""}`,
                        g.address ? addressLink(g.address) : "",
                        " until ",
                        time(g.expiresAt),
                      ),
                    ),
                  ),
          ],
          ["Created", (u) => time(u.createdAt)],
        ],
        page.items,
        "No end user in this project.",
      ),
      pager(page.total, page.offset, LIMIT, go, "End users"),
    );
  }

  return {
    async mount(root) {
      search.addEventListener("change", () => go(0));
      fill(root, h("h2", {}, "End users"), h("div", { class: "toolbar" }, field("Search end users", search)), results);
      await load();
    },
    refresh: load,
  };
}
