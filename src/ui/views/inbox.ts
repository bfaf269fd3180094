/// <reference lib="dom" />
/**
 * Embedded wallets: the message inbox (one-time codes "sent" by email or SMS, newest first, filtered by
 * address) and the project's sign-in settings (settings.embeddedWallets), edited as JSON and saved through
 * PATCH /_sandbox/projects/{projectId}.
 */
import { api, currentProject, query } from "../api.js";
import { field, fill, h, table, time } from "../dom.js";
import type { Shell, View } from "../view.js";

const EXAMPLE = {
  signInMethods: ["email", "sms", "siwe", "google", "apple", "x", "telegram", "github", "jwt"],
  allowedOrigins: [],
  attestationRequired: false,
  testCodes: { "tester@example.com": "123456" },
  mfa: { enabled: false },
};

export function inboxView(shell: Shell): View {
  const results = h("div", { class: "results" });
  const to = h("input", { type: "search", placeholder: "email address or phone number" });
  const settings = h("textarea", { rows: "12", cols: "80", class: "mono", spellcheck: "false" });

  async function load(): Promise<void> {
    const { messages } = await api<"listSandboxMessages">("GET", `/messages${query({ to: to.value.trim() || undefined })}`);
    fill(
      results,
      table(
        "Inbox",
        [
          ["To", (m) => m.to],
          ["Channel", (m) => m.channel],
          ["Code", (m) => h("strong", { class: "mono" }, m.code)],
          ["Flow", (m) => h("span", { class: "mono" }, m.flowId)],
          ["Sent", (m) => time(m.sentAt)],
        ],
        messages,
        "No message sent yet: start an email or SMS sign-in.",
      ),
    );
  }

  async function loadSettings(): Promise<void> {
    const project = currentProject();
    if (!project) return;
    const found = await api<"getSandboxProject">("GET", `/projects/${project}`, { global: true });
    const current = (found.settings as Record<string, unknown>).embeddedWallets;
    settings.value = JSON.stringify(current ?? EXAMPLE, null, 2);
  }

  async function save(e: Event): Promise<void> {
    e.preventDefault();
    const project = currentProject();
    if (!project) return;
    let embeddedWallets: unknown;
    try {
      embeddedWallets = JSON.parse(settings.value);
    } catch (error) {
      shell.say(`The settings are not JSON: ${(error as Error).message}`, "error");
      return;
    }
    try {
      await api<"updateSandboxProjectSettings">("PATCH", `/projects/${project}`, { body: { settings: { embeddedWallets } }, global: true });
      shell.say("Embedded-wallet settings saved.");
    } catch (error) {
      shell.say((error as Error).message, "error");
    }
  }

  return {
    async mount(root) {
      to.addEventListener("change", () => void load().catch((e: Error) => shell.say(e.message, "error")));
      fill(
        root,
        h("h2", {}, "Inbox"),
        h("p", { class: "muted" }, "One-time codes of embedded-wallet sign-in. Nothing leaves the sandbox."),
        h("div", { class: "toolbar" }, field("Sent to", to)),
        results,
        h("h2", {}, "Embedded-wallet settings"),
        h(
          "form",
          { onsubmit: (e: Event) => void save(e), "aria-label": "Embedded-wallet settings" },
          field("settings.embeddedWallets (JSON)", settings),
          h("p", {}, h("button", { type: "submit" }, "Save settings")),
        ),
      );
      await Promise.all([load(), loadSettings()]);
    },
    refresh: load,
  };
}
