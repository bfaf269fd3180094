/**
 * Client 1.57's subscription labels over HTTP: activity subscriptions without a network watch base-mainnet and
 * say so in their labels; wallet.activity.multi lists its wallets; health and maintenance subscriptions name the
 * service they follow.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "cdp-sandbox";
import { call, withSandbox } from "#test/helpers/sandbox.js";

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await withSandbox({ seed: "webhook-labels" });
});
afterAll(() => sandbox.close());

const BASE = "/platform/v2/data/webhooks/subscriptions";
const HEALTH = [
  "health.status.updated",
  "health.maintenance.scheduled",
  "health.maintenance.started",
  "health.maintenance.completed",
  "health.maintenance.canceled",
];
const body = (eventTypes: string[], labels?: Record<string, string>) => ({
  eventTypes,
  isEnabled: true,
  target: { url: "https://example.com/hooks" },
  ...(labels ? { labels } : {}),
});

describe("typed webhook labels", () => {
  it("default an activity subscription's network to base-mainnet and answer it in the labels", async () => {
    const res = await call(sandbox, "POST", BASE, {
      body: body(["onchain.activity.detected"], { contract_address: "0x036cbd53842c5426634e7929541ec2318f3dcf7e" }),
    });
    expect(res.status).toBe(201);
    expect(res.body.labels).toEqual({ contract_address: "0x036cbd53842c5426634e7929541ec2318f3dcf7e", network: "base-mainnet" });
    expect((await call(sandbox, "GET", `${BASE}/${res.body.subscriptionId}`)).body.labels).toEqual(res.body.labels);
    const bare = await call(sandbox, "POST", BASE, { body: body(["wallet.activity.detected"]) });
    expect(bare.body.labels).toEqual({ network: "base-mainnet" });
  });

  it("subscribe to every health and maintenance event of a service named by the service label", async () => {
    for (const service of ["payments_acceptance", "webhooks"]) {
      const res = await call(sandbox, "POST", BASE, { body: body(HEALTH, { service }) });
      expect(res.status, res.text).toBe(201);
      expect(res.body).toMatchObject({ eventTypes: HEALTH, labels: { service } });
    }
  });

  it("refuse a health subscription without a known service or with other labels (400 invalid_request), changing nothing", async () => {
    const before = (await call(sandbox, "GET", BASE)).body.subscriptions.length;
    for (const [labels, message] of [
      [undefined, /labels\.service is required/],
      [{ service: "wallets" }, /not a service with health events/],
      [{ service: "webhooks", network: "base-mainnet" }, /labels\.network is not a label of health/],
    ] as const) {
      const res = await call(sandbox, "POST", BASE, { body: body(["health.status.updated"], labels) });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ errorType: "invalid_request", errorMessage: expect.stringMatching(message) });
    }
    expect((await call(sandbox, "GET", BASE)).body.subscriptions).toHaveLength(before);
  });

  it("watch the wallets listed in wallet_addresses for wallet.activity.multi, on base-mainnet unless a network is named", async () => {
    const wallets = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8,0x90F79bf6EB2c4f870365E785982E1f101E93b906";
    const res = await call(sandbox, "POST", BASE, { body: body(["wallet.activity.multi"], { wallet_addresses: wallets }) });
    expect(res.status, res.text).toBe(201);
    expect(res.body.labels).toEqual({ wallet_addresses: wallets, network: "base-mainnet" });
    const sepolia = await call(sandbox, "POST", BASE, { body: body(["wallet.activity.multi"], { wallet_addresses: wallets, network: "base-sepolia" }) });
    expect(sepolia.body.labels.network).toBe("base-sepolia");
  });

  it("refuse wallet.activity.multi without wallet_addresses, with a malformed or over-long list, or with other labels", async () => {
    const before = (await call(sandbox, "GET", BASE)).body.subscriptions.length;
    const address = (i: number) => `0x${i.toString(16).padStart(40, "0")}`;
    for (const [labels, message] of [
      [undefined, /labels\.wallet_addresses is required/],
      [{ wallet_addresses: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8, 0x90F79bf6EB2c4f870365E785982E1f101E93b906" }, /is not a 0x address/],
      [{ wallet_addresses: "0x1234" }, /is not a 0x address/],
      [{ wallet_addresses: Array.from({ length: 101 }, (_, i) => address(i + 1)).join(",") }, /lists 101 addresses; .* at most 100/],
      [{ wallet_addresses: address(1), contract_address: address(2) }, /labels\.contract_address is not a label of wallet\.activity\.multi/],
    ] as const) {
      const res = await call(sandbox, "POST", BASE, { body: body(["wallet.activity.multi"], labels) });
      expect(res.status, JSON.stringify(labels)).toBe(400);
      expect(res.body).toMatchObject({ errorType: "invalid_request", errorMessage: expect.stringMatching(message) });
    }
    expect((await call(sandbox, "GET", BASE)).body.subscriptions).toHaveLength(before);
  });
});
