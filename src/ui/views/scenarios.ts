/// <reference lib="dom" />
/**
 * Scenarios: the shipped and loaded ones, switched on and off for the
 * project shown, and one error injected into the project's next request (an
 * inline scenario whose one rule fires once).
 */
import { api } from "../api.js";
import { badge, field, fill, h, table } from "../dom.js";
import type { Shell, View } from "../view.js";

export function scenariosView(shell: Shell): View {
  const active = h("div", { class: "results" });
  const available = h("div", { class: "results" });
  const errorCase = h("select", {});
  const operation = h("input", { type: "text", placeholder: "any operation" });

  async function act(run: () => Promise<unknown>, done: string): Promise<void> {
    try {
      await run();
      shell.say(done);
      await load();
    } catch (error) {
      shell.say((error as Error).message, "error");
    }
  }

  const switchOn = (name: string) =>
    act(() => api<"activateSandboxScenario">("POST", "/scenarios", { body: { name } }), `Scenario ${name} is on for this project.`);
  const switchOff = (name: string) =>
    act(() => api<"deactivateSandboxScenarios">("DELETE", `/scenarios?name=${encodeURIComponent(name)}`), `Scenario ${name} is off for this project.`);

  function inject(e: Event): void {
    e.preventDefault();
    const error = errorCase.value;
    const operationId = operation.value.trim();
    const name = `next-request-${error.replace(/_/g, "-")}`;
    const rule = { ...(operationId ? { match: { operationId } } : {}), when: { times: 1 }, error };
    void act(
      () =>
        api<"activateSandboxScenario">("POST", "/scenarios", { body: { scenario: { name, description: `One ${error} on the next request`, rules: [rule] } } }),
      `The next ${operationId || "request"} of this project answers ${error}.`,
    );
  }

  async function load(): Promise<void> {
    const list = await api<"listSandboxScenarios">("GET", "/scenarios");
    const on = new Set(list.active.map((a) => a.name));
    if (errorCase.options.length === 0 && list.errors) {
      fill(errorCase, ...list.errors.map((x) => h("option", { value: x.name }, `${x.name} (${x.status})`)));
    }
    fill(
      active,
      table(
        "Active scenarios",
        [
          ["Scenario", (a) => a.name ?? ""],
          ["Scope", (a) => badge(String(a.scope ?? ""))],
          [
            "",
            (a) =>
              a.scope === "project"
                ? h("button", { type: "button", onclick: () => void switchOff(a.name ?? ""), "aria-label": `Switch off ${a.name}` }, "Switch off")
                : "",
          ],
        ],
        list.active,
        "No scenario is on.",
      ),
    );
    fill(
      available,
      table(
        "Available scenarios",
        [
          ["Scenario", (s) => h("span", { class: "mono" }, s.name ?? "")],
          ["Effect", (s) => s.description ?? ""],
          [
            "",
            (s) =>
              on.has(s.name ?? "")
                ? h("button", { type: "button", onclick: () => void switchOff(s.name ?? ""), "aria-label": `Switch off ${s.name}` }, "Switch off")
                : h("button", { type: "button", onclick: () => void switchOn(s.name ?? ""), "aria-label": `Switch on ${s.name}` }, "Switch on"),
          ],
        ],
        list.available,
      ),
    );
  }

  return {
    async mount(root) {
      fill(
        root,
        h("h2", {}, "Scenarios"),
        h(
          "form",
          { class: "toolbar", onsubmit: inject, "aria-label": "Inject one error" },
          field("Error case", errorCase),
          field("Only for operation", operation),
          h("button", { type: "submit" }, "Inject on next request"),
        ),
        h("h3", {}, "On"),
        active,
        h("h3", {}, "Shipped and loaded"),
        available,
      );
      await load();
    },
    refresh: async () => undefined,
  };
}
