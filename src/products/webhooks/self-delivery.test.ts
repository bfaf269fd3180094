/**
 * Webhooks never reach the sandbox itself. A delivery is an unauthenticated
 * POST from the sandbox's own machine, so a subscription to
 * `http://127.0.0.1:<the sandbox's port>/_sandbox/reset` would let any caller
 * reset every project: such targets are refused when a subscription is created
 * or replaced, and again when a delivery is made (a target stored earlier can
 * become the sandbox's, e.g. after a restart on another port).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import type { Sandbox } from "cdp-sandbox";
import { startReceiver, type Receiver } from "#test/helpers/receiver.js";
import { call, withSandbox } from "#test/helpers/sandbox.js";

const BASE = "/platform/v2/data/webhooks/subscriptions";
const ACCOUNTS = "/platform/v2/evm/accounts";
const subscription = (url: string) => ({ eventTypes: ["onramp.transaction.success"], isEnabled: true, target: { url } });
const sendTestEvent = (sandbox: Sandbox, subscriptionId: string) =>
  call(sandbox, "POST", `/_sandbox/webhooks/${subscriptionId}/test`, { body: { data: { orderId: "o-1" } } });
const accountNames = async (sandbox: Sandbox) =>
  (await call(sandbox, "GET", ACCOUNTS)).body.accounts.map((a: { name?: string }) => a.name) as Array<string | undefined>;

describe("a subscription's target", () => {
  let sandbox: Sandbox;
  let receiver: Receiver;
  let port: string;
  beforeAll(async () => {
    sandbox = await withSandbox({ seed: "webhook-self-target", validateResponses: true });
    receiver = await startReceiver();
    port = new URL(sandbox.url).port;
  });
  afterAll(async () => {
    await sandbox.close();
    await receiver.close();
  });

  const ownTargets = () => [
    `http://127.0.0.1:${port}/_sandbox/reset`,
    `http://localhost:${port}/_sandbox/reset`,
    `http://[::1]:${port}/_sandbox/reset`,
    `http://[::ffff:127.0.0.1]:${port}/_sandbox/reset`,
    `http://0.0.0.0:${port}/_sandbox/reset`,
    `http://hooks.localhost:${port}/_sandbox/reset`,
    `https://127.0.0.1:${port}/platform/v2/evm/accounts`,
  ];
  const listed = async () => (await call(sandbox, "GET", BASE)).body.subscriptions as Array<{ subscriptionId: string; target: { url: string } }>;

  it("cannot be the sandbox itself: a create is refused with 400 and stores nothing", async () => {
    const before = await listed();
    for (const url of ownTargets()) {
      const res = await call(sandbox, "POST", BASE, { body: subscription(url) });
      expect(res.status, url).toBe(400);
      expect(res.body).toMatchObject({ errorType: "invalid_request", errorMessage: expect.stringMatching(/sandbox itself/) });
    }
    expect(await listed()).toEqual(before);
  });

  it("cannot be replaced by the sandbox itself: an update is refused with 400 and the subscription stays as it was", async () => {
    const created = await call(sandbox, "POST", BASE, { body: subscription(receiver.url("/hooks/kept")) });
    expect(created.status).toBe(201);
    for (const url of ownTargets()) {
      const res = await call(sandbox, "PUT", `${BASE}/${created.body.subscriptionId}`, { body: subscription(url) });
      expect(res.status, url).toBe(400);
      expect(res.body).toMatchObject({ errorType: "invalid_request", errorMessage: expect.stringMatching(/sandbox itself/) });
    }
    expect((await call(sandbox, "GET", `${BASE}/${created.body.subscriptionId}`)).body).toEqual(created.body);
  });

  it("may be another port of this machine: a local receiver gets its deliveries", async () => {
    const viaLocalhost = receiver.url("/hooks/local").replace("127.0.0.1", "localhost");
    const created = await call(sandbox, "POST", BASE, { body: subscription(receiver.url("/hooks/local")) });
    expect(created.status).toBe(201);
    const replaced = await call(sandbox, "PUT", `${BASE}/${created.body.subscriptionId}`, { body: subscription(viaLocalhost) });
    expect(replaced.status).toBe(200);
    const sent = await sendTestEvent(sandbox, created.body.subscriptionId);
    expect(sent.body).toMatchObject({ status: "succeeded", response: { httpCode: 200 } });
    expect(receiver.received("/hooks/local")).toHaveLength(1);
  });
});

describe("a delivery", () => {
  it("is not sent to a stored target that has become the sandbox itself, and the sandbox's state is intact", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cdp-sandbox-"));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, "state.json");
    // A receiver's port, subscribed while it is a receiver's...
    const receiver = await startReceiver();
    const receiverPort = Number(new URL(receiver.url("/")).port);
    const first = await withSandbox({ data: file, validateResponses: true });
    const created = await call(first, "POST", BASE, { body: subscription(`http://127.0.0.1:${receiverPort}/_sandbox/balances`) });
    expect(created.status).toBe(201);
    const account = await call(first, "POST", ACCOUNTS, { body: { name: "kept" }, wallet: true });
    expect(account.status).toBe(201);
    await first.close();
    await receiver.close();

    // ...is the sandbox's own after a restart on it: the event's payload would be an admin call crediting the account.
    const second = await withSandbox({ data: file, port: receiverPort, validateResponses: true });
    onTestFinished(() => second.close());
    const credit = { network: "base-sepolia", address: account.body.address, amount: "1000000000000000000" };
    const sent = await call(second, "POST", `/_sandbox/webhooks/${created.body.subscriptionId}/test`, { body: { data: credit } });
    expect(sent.status).toBe(200);
    expect(sent.body).toMatchObject({ status: "retrying", retryCount: 0, response: { errorName: "target_is_sandbox" } });
    expect(sent.body.response.httpCode).toBeUndefined();
    expect(await accountNames(second)).toEqual(["kept"]);
    expect((await call(second, "GET", `/platform/v2/evm/token-balances/base-sepolia/${account.body.address}`)).body.balances).toEqual([]);
  });
});
