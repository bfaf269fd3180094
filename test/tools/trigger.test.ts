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

  it("holds a deposit of $3,000 for its travel-rule details, then credits it once they are submitted: four events, in order", async () => {
    const types = [
      "payments.transfers.processing",
      "payments.transfers.travel_rule_incomplete",
      "payments.transfers.travel_rule_completed",
      "payments.transfers.completed",
    ];
    const sub = await subscribe(sandbox, receiver, types);
    await triggerEvent(client, keys, "payments.transfers.travel_rule_completed", () => undefined);
    const got = await deliveredTo(sandbox, receiver, sub);
    expect(got.map((e) => e.eventType)).toEqual(types);
    expect(got.map((e) => [e.body.data.status, e.body.data.details.travelRule?.status])).toEqual([
      ["processing", "incomplete"],
      ["processing", "incomplete"],
      ["completed", "completed"],
      ["completed", "completed"],
    ]);
    const transfer = got[3]!.body.data;
    expect(transfer.transferId).toBe(got[0]!.body.data.transferId);
    const balances = await call(sandbox, "GET", `/platform/v2/accounts/${transfer.target.accountId}/balances`);
    expect(balances.body.balances.map((b: { amount: unknown }) => b.amount)).toEqual([
      { usdc: { available: "3000.00", total: "3000.00" }, usd: { available: "3000.00", total: "3000.00" } },
    ]);
    await call(sandbox, "DELETE", `/platform/v2/data/webhooks/subscriptions/${sub.subscriptionId}`);
  });

  it.each([
    ["authorization", "insufficient_funds", { capturable: "0", captured: "0", refunded: "0" }],
    ["capture", "capture_expired", { capturable: "1.00", captured: "0", refunded: "0" }],
    ["refund", "insufficient_balance", { capturable: "0", captured: "1.00", refunded: "0" }],
  ])("fails a payment session's %s where the ledger makes it fail (%s), and leaves the balances %o", async (action, code, balances) => {
    const failed = `acceptance.payment_session.${action}_failed`;
    const sub = await subscribe(sandbox, receiver, [`acceptance.payment_session.${action}_pending`, failed]);
    await triggerEvent(client, keys, failed, () => undefined);
    const got = await deliveredTo(sandbox, receiver, sub);
    expect(got.map((e) => e.eventType)).toEqual([`acceptance.payment_session.${action}_pending`, failed]);
    const { paymentSession, [action]: outcome } = got[1]!.body.data;
    expect(outcome).toMatchObject({ status: "failed", error: { code } });
    expect(outcome.onchainTransactions).toBeUndefined();
    const session = await call(sandbox, "GET", `/platform/v2/payment-sessions/${paymentSession.paymentSessionId}`);
    expect(session.body.status).toBe(`${action}_failed`);
    expect(session.body.balances).toMatchObject(balances);
    await call(sandbox, "DELETE", `/platform/v2/data/webhooks/subscriptions/${sub.subscriptionId}`);
  });

  it("holds a running clock still while a failure flow runs, and lets it run again afterwards", async () => {
    sandbox.clock.freeze(false);
    try {
      const sub = await subscribe(sandbox, receiver, ["acceptance.payment_session.capture_failed"]);
      const before = sandbox.clock.now();
      await triggerEvent(client, keys, "acceptance.payment_session.capture_failed", () => undefined);
      expect(sandbox.clock.frozen).toBe(false);
      expect(sandbox.clock.now() - before).toBeGreaterThanOrEqual(11_000); // the flow's 2 s + 7 s + 2 s, and the requests' own time
      const [event] = await deliveredTo(sandbox, receiver, sub);
      expect(event!.body.data.capture.error.code).toBe("capture_expired");
      await call(sandbox, "DELETE", `/platform/v2/data/webhooks/subscriptions/${sub.subscriptionId}`);
    } finally {
      sandbox.clock.freeze(true);
    }
  });
});

describe("the trigger command", () => {
  it("lists the event types with what each does", async () => {
    const run = await startNode([cliPath, "trigger", "--list"]).finished;
    expect(run.code).toBe(0);
    for (const eventType of triggerableEventTypes()) expect(run.stdout).toContain(eventType);
    expect(run.stdout).toMatch(/onramp\.transaction\.success\s+a headless onramp order/);
    expect(run.stdout).toMatch(/payments\.transfers\.travel_rule_completed\s+the held deposit of 3,000 USDC/);
    expect(run.stdout).toMatch(/acceptance\.payment_session\.refund_failed\s+a payment session paying a project account/);
    expect(run.stdout).not.toContain("void_failed");
  });

  it("refuses an unknown event type naming the accepted ones, and one the sandbox never produces saying why", async () => {
    const unknown = await startNode([cliPath, "trigger", "onramp.transaction.exploded", "--url", sandbox.url]).finished;
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown event type 'onramp\.transaction\.exploded'.*onramp\.transaction\.success/);
    const offramp = await startNode([cliPath, "trigger", "offramp.transaction.success", "--url", sandbox.url]).finished;
    expect(offramp.code).toBe(2);
    expect(offramp.stderr).toContain("the sandbox has no offramp");
    const voidFailed = await startNode([cliPath, "trigger", "acceptance.payment_session.void_failed", "--url", sandbox.url]).finished;
    expect(voidFailed.code).toBe(2);
    expect(voidFailed.stderr).toContain("a void has no deadline and the escrow always holds what is still capturable");
  });

  it("runs a travel-rule flow against a running sandbox (--url): the incomplete deposit is delivered and printed", async () => {
    const sub = await subscribe(sandbox, receiver, ["payments.transfers.travel_rule_incomplete"]);
    const run = await startNode([cliPath, "trigger", "payments.transfers.travel_rule_incomplete", "--url", sandbox.url]).finished;
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/payments\.transfers\.travel_rule_incomplete {2}succeeded \(200\)/);
    const [event] = await deliveredTo(sandbox, receiver, sub);
    expect(event!.body.data).toMatchObject({ status: "processing", details: { travelRule: { status: "incomplete" } } });
    await call(sandbox, "DELETE", `/platform/v2/data/webhooks/subscriptions/${sub.subscriptionId}`);
  });

  it("runs a flow against a running sandbox (--url) and prints each delivery with the receiver's answer", async () => {
    const sub = await subscribe(sandbox, receiver, ["customers.customer.deleted"]);
    const run = await startNode([cliPath, "trigger", "customers.customer.deleted", "--url", sandbox.url]).finished;
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`customers\\.customer\\.deleted  succeeded \\(200\\)  ${receiver.url(sub.path).replace(/[.]/g, "\\.")}`));
    expect(await deliveredTo(sandbox, receiver, sub)).toHaveLength(1);
  });
});
