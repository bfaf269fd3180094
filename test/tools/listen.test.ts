/**
 * `cdp-sandbox listen`: a project's deliveries forwarded to a local endpoint,
 * signed with listen's own secret in the platform's scheme (checked at the
 * receiver with node:crypto), printed, and the subscription removed on exit;
 * the secret is the same on every run for the same project.
 */
import { describe, expect, it, beforeAll } from "vitest";
import { SandboxClient } from "../../src/tools/client.js";
import { listenSecret, startListener } from "../../src/tools/listen.js";
import { triggerEvent } from "../../src/tools/trigger.js";
import { BUILD_TIMEOUT_MS, cliPath, ensureBuilt, startNode } from "#test/helpers/cli.js";
import { call } from "#test/helpers/sandbox.js";
import { deliveredTo, sandboxWithReceiver } from "#test/helpers/webhooks.js";

const { sandbox, receiver } = await sandboxWithReceiver({ seed: "listen" });
const client = new SandboxClient(sandbox.url, sandbox.adminToken);
const keys = { ...sandbox.credentials };
const subscriptionIds = async () =>
  ((await call(sandbox, "GET", "/platform/v2/data/webhooks/subscriptions")).body.subscriptions as Array<{ subscriptionId: string }>).map(
    (s) => s.subscriptionId,
  );

// The built command: dist/ is built first when it is missing or older than its sources.
beforeAll(() => ensureBuilt(), BUILD_TIMEOUT_MS);

describe("cdp-sandbox listen", () => {
  it("forwards each delivery of the chosen events, signed with its own secret, prints it, and removes its subscription when it stops", async () => {
    const lines: string[] = [];
    const listener = await startListener(client, keys, {
      forwardTo: receiver.url("/listen/a"),
      eventTypes: ["customers.capability.changed", "customers.customer.deleted"],
      print: (line) => lines.push(line),
    });
    expect(listener.secret).toBe(listenSecret(keys));
    expect(await subscriptionIds()).toContain(listener.subscriptionId);
    await triggerEvent(client, keys, "customers.customer.deleted", () => undefined);
    // Signed with listen's secret, not the subscription's: deliveredTo checks each signature with the secret given.
    const got = await deliveredTo(sandbox, receiver, { subscriptionId: listener.subscriptionId, secret: listener.secret, path: "/listen/a" });
    expect(got.map((e) => e.eventType)).toEqual(["customers.capability.changed", "customers.capability.changed", "customers.customer.deleted"]);
    expect(lines).toHaveLength(3);
    expect(lines.join("\n")).toMatch(/customers\.customer\.deleted {2}\S+ {2}→ 200 http:\/\/127\.0\.0\.1:\d+\/listen\/a/);
    // The sandbox recorded the receiver's answer as the delivery's.
    const deliveries = (await call(sandbox, "GET", `/_sandbox/webhooks/deliveries?subscriptionId=${listener.subscriptionId}`, { anonymous: true })).body
      .deliveries;
    expect(deliveries.map((d: any) => [d.status, d.response.httpCode])).toEqual([
      ["succeeded", 200],
      ["succeeded", 200],
      ["succeeded", 200],
    ]);
    await listener.close();
    expect(await subscriptionIds()).not.toContain(listener.subscriptionId);
  });

  it("passes the receiver's refusal back to the sandbox, which retries as for any subscription", async () => {
    receiver.answer("/listen/b", [503]);
    const lines: string[] = [];
    const listener = await startListener(client, keys, {
      forwardTo: receiver.url("/listen/b"),
      eventTypes: ["customers.customer.deleted"],
      print: (l) => lines.push(l),
    });
    await triggerEvent(client, keys, "customers.customer.deleted", () => undefined);
    expect(lines.join("\n")).toContain("→ 503");
    const [delivery] = (await call(sandbox, "GET", `/_sandbox/webhooks/deliveries?subscriptionId=${listener.subscriptionId}`, { anonymous: true })).body
      .deliveries;
    expect(delivery).toMatchObject({ status: "retrying", response: { httpCode: 503 } });
    await listener.close();
  });
});

describe("the listen command", () => {
  // Three in-process sandboxes started one after another: seconds each on a quiet machine, far more on a loaded runner.
  it("prints the same secret on every run with the same --seed, and another with another seed", async () => {
    const secretOf = async (seed: string) => {
      const run = startNode([cliPath, "listen", "--forward-to", receiver.url("/listen/seeded"), "--seed", seed]);
      const [, secret] = (await run.waitFor(/signing secret is (\S+)/, "stdout"))!;
      run.child.kill("SIGTERM");
      expect((await run.finished).code).toBe(0);
      return secret;
    };
    const first = await secretOf("listen-seed");
    expect(await secretOf("listen-seed")).toBe(first);
    expect(await secretOf("another-seed")).not.toBe(first);
  }, 120_000);

  it("forwards what a trigger sends, and removes its subscription on SIGTERM", async () => {
    const run = startNode([cliPath, "listen", "--url", sandbox.url, "--forward-to", receiver.url("/listen/cli"), "--events", "customers.customer.deleted"]);
    const [, secret] = (await run.waitFor(/signing secret is (\S+)/, "stdout"))!;
    expect(secret).toBe(listenSecret(keys));
    const [subscriptionId] = await subscriptionIds(); // newest first: listen's
    await triggerEvent(client, keys, "customers.customer.deleted", () => undefined);
    await run.waitFor(/customers\.customer\.deleted .*→ 200/, "stdout");
    const got = await deliveredTo(sandbox, receiver, { subscriptionId: subscriptionId!, secret: secret!, path: "/listen/cli" });
    expect(got.map((e) => e.eventType)).toEqual(["customers.customer.deleted"]);
    run.child.kill("SIGTERM");
    expect((await run.finished).code).toBe(0);
    expect(await subscriptionIds()).not.toContain(subscriptionId);
  });

  it("refuses a missing --forward-to and an event type the contract does not have, naming what is accepted", async () => {
    const before = await subscriptionIds();
    const none = await startNode([cliPath, "listen", "--url", sandbox.url]).finished;
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("--forward-to takes the URL of your webhook endpoint");
    const bad = await startNode([cliPath, "listen", "--url", sandbox.url, "--forward-to", receiver.url("/x"), "--events", "onramp.transaction.exploded"])
      .finished;
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/unknown event type 'onramp\.transaction\.exploded'\. The sandbox delivers: .*onramp\.transaction\.success/);
    expect(await subscriptionIds()).toEqual(before); // refused before anything was made
  });
});
