/**
 * `cdp-sandbox trigger`: for every event type it accepts, the real flow runs
 * over HTTP against a sandbox, and a local receiver gets the event signed with
 * its subscription's secret (checked with node:crypto, as the docs tell a
 * receiver to). The command itself is run once end to end, and with bad input.
 */
import { describe, expect, it, beforeAll } from "vitest";
import { SandboxClient } from "../../src/tools/client.js";
import { triggerableEventTypes, triggerEvent } from "../../src/tools/trigger.js";
import { BUILD_TIMEOUT_MS, cliPath, ensureBuilt, startNode } from "#test/helpers/cli.js";
import { deliveredTo, type Subscription, subscribe, sandboxWithReceiver } from "#test/helpers/webhooks.js";
import { call } from "#test/helpers/sandbox.js";

const { sandbox, receiver } = await sandboxWithReceiver({ seed: "trigger" });
const client = new SandboxClient(sandbox.url, sandbox.adminToken);
const keys = { ...sandbox.credentials };

const USDC_BASE_SEPOLIA = "0x036CbD53842c5426634e7929541eC2318f3dCF7e";
/** The labels an activity subscription needs (the flow sends on the network they name). */
const LABELS: Record<string, Record<string, string>> = {
  "onchain.activity.detected": { contract_address: USDC_BASE_SEPOLIA, network: "base-sepolia" },
  "wallet.activity.detected": { network: "base-sepolia" },
};

/** An enabled subscription to `eventTypes` (with labels, for the activity types) at a fresh path of the receiver. */
async function subscribeWithLabels(eventTypes: string[], labels?: Record<string, string>): Promise<Subscription> {
  if (!labels) return subscribe(sandbox, receiver, eventTypes);
  const path = `/hooks/labelled-${eventTypes[0]}`;
  const res = await call(sandbox, "POST", "/platform/v2/data/webhooks/subscriptions", {
    body: { eventTypes, isEnabled: true, target: { url: receiver.url(path) }, labels },
  });
  if (res.status !== 201) throw new Error(`subscription refused: ${res.status} ${res.text}`);
  return { subscriptionId: res.body.subscriptionId, secret: res.body.secret, path };
}

// The built command: dist/ is built first when it is missing or older than its sources.
beforeAll(() => ensureBuilt(), BUILD_TIMEOUT_MS);

describe("cdp-sandbox trigger", () => {
  it.each(triggerableEventTypes())("delivers %s, signed, to a subscription taking it, from the real flow", async (eventType) => {
    const sub = await subscribeWithLabels([eventType], LABELS[eventType]);
    const lines: string[] = [];
    expect(await triggerEvent(client, keys, eventType, (line) => lines.push(line))).toBe(0);
    const got = await deliveredTo(sandbox, receiver, sub); // throws unless each is signed with the subscription's secret
    expect(got.length).toBeGreaterThanOrEqual(1);
    expect(got.every((e) => e.eventType === eventType)).toBe(true);
    // A subscription of another project or event type would have seen nothing: this one only ever saw its own type.
    await call(sandbox, "DELETE", `/platform/v2/data/webhooks/subscriptions/${sub.subscriptionId}`);
  });

  it("delivers the whole sequence of a flow in order: an onramp order created, updated twice, completed, with its transaction on the ledger", async () => {
    const types = ["onramp.transaction.created", "onramp.transaction.updated", "onramp.transaction.success"];
    const sub = await subscribe(sandbox, receiver, types);
    await triggerEvent(client, keys, "onramp.transaction.success", () => undefined);
    const got = await deliveredTo(sandbox, receiver, sub);
    expect(got.map((e) => e.eventType)).toEqual([
      "onramp.transaction.created",
      "onramp.transaction.updated",
      "onramp.transaction.updated",
      "onramp.transaction.success",
    ]);
    expect(got.map((e) => e.body.status)).toEqual([
      "ONRAMP_ORDER_STATUS_PENDING_AUTH",
      "ONRAMP_ORDER_STATUS_PENDING_PAYMENT",
      "ONRAMP_ORDER_STATUS_PROCESSING",
      "ONRAMP_ORDER_STATUS_COMPLETED",
    ]);
    const done = got[3]!.body;
    const tx = await call(sandbox, "GET", `/_sandbox/chain/transactions/${done.txHash}`, { anonymous: true });
    expect(tx.status).toBe(200);
    await call(sandbox, "DELETE", `/platform/v2/data/webhooks/subscriptions/${sub.subscriptionId}`);
  });
});

describe("the trigger command", () => {
  it("lists the event types with what each does", async () => {
    const run = await startNode([cliPath, "trigger", "--list"]).finished;
    expect(run.code).toBe(0);
    for (const eventType of triggerableEventTypes()) expect(run.stdout).toContain(eventType);
    expect(run.stdout).toMatch(/onramp\.transaction\.success\s+a headless onramp order/);
  });

  it("refuses an unknown event type naming the accepted ones, and one the sandbox never produces saying why", async () => {
    const unknown = await startNode([cliPath, "trigger", "onramp.transaction.exploded", "--url", sandbox.url]).finished;
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown event type 'onramp\.transaction\.exploded'.*onramp\.transaction\.success/);
    const offramp = await startNode([cliPath, "trigger", "offramp.transaction.success", "--url", sandbox.url]).finished;
    expect(offramp.code).toBe(2);
    expect(offramp.stderr).toContain("the sandbox has no offramp");
  });

  it("runs a flow against a running sandbox (--url) and prints each delivery with the receiver's answer", async () => {
    const sub = await subscribe(sandbox, receiver, ["customers.customer.deleted"]);
    const run = await startNode([cliPath, "trigger", "customers.customer.deleted", "--url", sandbox.url]).finished;
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`customers\\.customer\\.deleted  succeeded \\(200\\)  ${receiver.url(sub.path).replace(/[.]/g, "\\.")}`));
    expect(await deliveredTo(sandbox, receiver, sub)).toHaveLength(1);
  });
});
