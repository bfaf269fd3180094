/**
 * A sandbox bound off loopback (`--host 0.0.0.0`) is reachable by other machines, so what is convenient on
 * loopback is refused there unless the operator opts in: a made-up API key is not served as a new project, and
 * webhook targets on the host's own networks (loopback, link-local, private) are refused, since deliveries and
 * their logged answers would let a caller read the host's services. On loopback both stay allowed.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "cdp-sandbox";
import { startReceiver, type Receiver } from "#test/helpers/receiver.js";
import { call, withSandbox } from "#test/helpers/sandbox.js";
import { randomEd25519Secret } from "#test/helpers/tokens.js";

const SUBSCRIPTIONS = "/platform/v2/data/webhooks/subscriptions";
const stranger = () => ({ apiKeyId: `made-up-${Math.random().toString(36).slice(2)}`, apiKeySecret: randomEd25519Secret(), walletSecret: "" });

let receiver: Receiver;
let exposed: Sandbox;
let exposedOptedIn: Sandbox;
let local: Sandbox;
beforeAll(async () => {
  receiver = await startReceiver();
  [exposed, exposedOptedIn, local] = await Promise.all([
    withSandbox({ host: "0.0.0.0", seed: "exposed" }),
    withSandbox({ host: "0.0.0.0", seed: "exposed-opted-in", acceptUnknownKeys: true, allowPrivateWebhookTargets: true }),
    withSandbox({ seed: "loopback" }),
  ]);
});
afterAll(async () => {
  await Promise.all([exposed.close(), exposedOptedIn.close(), local.close(), receiver.close()]);
});

const PRIVATE_TARGETS = () => [
  receiver.url("/hooks/loopback"),
  `http://localhost:${new URL(receiver.url("/")).port}/hooks`,
  "http://10.1.2.3/hooks",
  "http://172.20.0.1:8080/hooks",
  "http://192.168.1.1/hooks",
  "http://169.254.169.254/latest/meta-data/",
  "http://[::1]:9000/hooks",
  "http://[fd00::1]/hooks",
  "http://[fe80::1]/hooks",
  "http://[::ffff:127.0.0.1]:9000/hooks",
  "http://0.0.0.0:9000/hooks",
  "http://2130706433:9000/hooks", // 127.0.0.1 written as one number: the URL parser normalises it
];

describe("off loopback, by default", () => {
  it("refuses a made-up API key instead of serving it as a new project, naming the opt-in", async () => {
    const res = await call(exposed, "GET", "/platform/v2/evm/accounts", { credentials: stranger() });
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ errorType: "unauthorized", errorMessage: expect.stringMatching(/Unknown API key.*--accept-unknown-keys/) });
    expect(exposed.optIns).toEqual([]);
  });

  it("refuses webhook targets on loopback, link-local and private addresses, storing nothing", async () => {
    for (const url of PRIVATE_TARGETS()) {
      const res = await call(exposed, "POST", SUBSCRIPTIONS, { body: { eventTypes: ["onchain.activity.detected"], isEnabled: true, target: { url } } });
      expect(res.status, `${url}: ${JSON.stringify(res.body)}`).toBe(400);
      expect(res.body).toMatchObject({
        errorType: "invalid_request",
        errorMessage: expect.stringMatching(/host's own network.*--allow-private-webhook-targets/),
      });
    }
    const update = await call(exposed, "POST", SUBSCRIPTIONS, {
      body: {
        eventTypes: ["onchain.activity.detected"],
        isEnabled: true,
        target: { url: "https://hooks.example.com/in" },
        labels: { contract_address: "0x0000000000000000000000000000000000000001" },
      },
    });
    expect(update.status, JSON.stringify(update.body)).toBe(201);
    const replaced = await call(exposed, "PUT", `${SUBSCRIPTIONS}/${update.body.subscriptionId}`, {
      body: {
        eventTypes: ["onchain.activity.detected"],
        isEnabled: true,
        target: { url: receiver.url("/hooks/x") },
        labels: { contract_address: "0x0000000000000000000000000000000000000001" },
      },
    });
    expect(replaced.status).toBe(400);
    expect((await call(exposed, "GET", SUBSCRIPTIONS)).body.subscriptions.map((s: { target: { url: string } }) => s.target.url)).toEqual([
      "https://hooks.example.com/in",
    ]);
  });
});

describe("off loopback, with the opt-ins", () => {
  it("serves a made-up key and takes a loopback webhook target, and lists both opt-ins", async () => {
    expect(exposedOptedIn.optIns).toEqual(["accept-unknown-keys", "private-webhook-targets"]);
    const creds = stranger();
    expect((await call(exposedOptedIn, "GET", "/platform/v2/evm/accounts", { credentials: creds })).status).toBe(200);
    const res = await call(exposedOptedIn, "POST", SUBSCRIPTIONS, {
      body: {
        eventTypes: ["onchain.activity.detected"],
        isEnabled: true,
        target: { url: receiver.url("/hooks/opted-in") },
        labels: { contract_address: "0x0000000000000000000000000000000000000001" },
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
  });
});

describe("on loopback", () => {
  it("stays as convenient as before: a made-up key is a new project and a local receiver is a target", async () => {
    expect(local.optIns).toEqual([]);
    expect((await call(local, "GET", "/platform/v2/evm/accounts", { credentials: stranger() })).status).toBe(200);
    const res = await call(local, "POST", SUBSCRIPTIONS, {
      body: {
        eventTypes: ["onchain.activity.detected"],
        isEnabled: true,
        target: { url: receiver.url("/hooks/local") },
        labels: { contract_address: "0x0000000000000000000000000000000000000001" },
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
  });
});
