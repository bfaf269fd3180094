/// <reference lib="dom" />
/**
 * The client side of the project: its client API key and the JSON-RPC URL front-end code uses (OnchainKit's
 * `rpcUrl`), a button that rotates the key (the old URL answers 401 at once), and the checkout charges paid
 * through that URL, with where each one stands.
 */
import { api, currentProject, query } from "../api.js";
import { addressLink, badge, fill, h, pager, table, time, txLink } from "../dom.js";
import type { Shell, View } from "../view.js";

const LIMIT = 50;

export function clientRpcView(shell: Shell): View {
  let offset = 0;
  const key = h("div", { class: "results" });
  const charges = h("div", { class: "results" });

  async function rotate(): Promise<void> {
    const projectId = currentProject();
    if (!projectId) return;
    try {
      const rotated = await api<"rotateSandboxClientApiKey">("POST", `/projects/${encodeURIComponent(projectId)}/client-api-key/rotate`);
      // Shown first, then said: whoever reads the message finds the new key on the page already.
      await load();
      shell.say(`New client API key ${rotated.clientApiKey}; the old URL now answers 401.`);
    } catch (error) {
      shell.say((error as Error).message, "error");
    }
  }

  const go = (next: number) => {
    offset = next;
    load().catch((e: Error) => shell.say(e.message, "error"));
  };

  async function load(): Promise<void> {
    const projectId = currentProject();
    const [project, page] = await Promise.all([
      projectId ? api<"getSandboxProject">("GET", `/projects/${encodeURIComponent(projectId)}`) : undefined,
      api<"listSandboxCharges">("GET", `/charges${query({ offset, limit: LIMIT })}`),
    ]);
    const clientKey = project?.clientApiKey ?? "";
    fill(
      key,
      h("p", {}, "Client API key: ", h("span", { class: "mono", "data-testid": "client-api-key" }, clientKey)),
      h("p", {}, "JSON-RPC URL (e.g. OnchainKit's rpcUrl): ", h("span", { class: "mono" }, `${location.origin}/rpc/v1/base-sepolia/${clientKey}`)),
      h("button", { type: "button", onclick: () => void rotate() }, "Rotate the client API key"),
    );
    fill(
      charges,
      table(
        "Charges",
        [
          ["Charge", (c) => h("span", { class: "mono" }, c.chargeId)],
          ["Name", (c) => `${c.name}${c.productId ? ` (product ${c.productId})` : ""}`],
          ["Status", (c) => badge(c.status.toLowerCase())],
          ["Amount (USDC units)", (c) => c.amount],
          ["Recipient", (c) => addressLink(c.recipient)],
          ["Paid by", (c) => (c.transactionHash ? txLink(c.transactionHash) : (c.payer ?? ""))],
          ["Created", (c) => time(c.createdAt)],
        ],
        page.items,
        "No charge in this project.",
      ),
      pager(page.total, page.offset, LIMIT, go, "Charges"),
    );
  }

  return {
    async mount(root) {
      fill(root, h("h2", {}, "Client API key"), key, h("h2", {}, "Checkout charges"), charges);
      await load();
    },
    refresh: load,
  };
}
