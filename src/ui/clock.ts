/// <reference lib="dom" />
/** The header's clock: the sandbox time, and controls to advance, set, freeze and unfreeze it (POST /_sandbox/clock). */
import { api } from "./api.js";
import { field, h } from "./dom.js";
import type { Overview, Shell } from "./view.js";

export function clockControls(shell: Shell) {
  const now = h("time", { class: "mono now", title: "Sandbox time" });
  const frozen = h("span", { class: "badge" });
  const advance = h("input", { type: "text", size: 6, value: "15m", placeholder: "15m" });
  const set = h("input", { type: "text", size: 22, placeholder: "2026-01-01T00:00:00Z" });
  const freeze = h("button", { type: "button", "aria-pressed": "false" }, "Freeze");
  let isFrozen = false;

  async function change(body: Record<string, unknown>, done: string): Promise<void> {
    try {
      const c = await api<"setSandboxClock">("POST", "/clock", { body, global: true });
      shell.say(`${done}: the sandbox time is ${c.now}.`);
      await shell.poke();
    } catch (error) {
      shell.say((error as Error).message, "error");
    }
  }

  const element = h(
    "div",
    { class: "clock", role: "group", "aria-label": "Clock" },
    now,
    frozen,
    h(
      "form",
      {
        class: "inline",
        onsubmit: (e: Event) => {
          e.preventDefault();
          void change({ advance: advance.value.trim() }, `Advanced by ${advance.value.trim()}`);
        },
      },
      field("Advance by", advance),
      h("button", { type: "submit" }, "Advance"),
    ),
    h(
      "form",
      {
        class: "inline",
        onsubmit: (e: Event) => {
          e.preventDefault();
          void change({ set: set.value.trim() }, "Set");
        },
      },
      field("Set to", set),
      h("button", { type: "submit" }, "Set"),
    ),
    freeze,
  );
  freeze.addEventListener("click", () => void change({ freeze: !isFrozen }, isFrozen ? "Unfrozen" : "Frozen"));

  return {
    element,
    show(clock: Overview["clock"]) {
      isFrozen = clock.frozen;
      now.textContent = clock.now.replace("T", " ").replace(/\.\d+Z$|Z$/, " UTC");
      frozen.textContent = clock.frozen ? "frozen" : "running";
      frozen.className = `badge badge-${clock.frozen ? "frozen" : "running"}`;
      freeze.textContent = clock.frozen ? "Unfreeze" : "Freeze";
      freeze.setAttribute("aria-pressed", String(clock.frozen));
    },
  };
}
