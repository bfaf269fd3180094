/**
 * Webhooks through @coinbase/cdp-sdk: `cdp.webhooks.createSubscription` (the
 * client's only webhook method), and the list/get/update/delete/events
 * operations of the client's generated API, which an app reaches through the
 * same configured HTTP client. A faucet claim made with the client then
 * arrives at a local endpoint, signed with the secret the client returned.
 */
import { createHmac } from "node:crypto";
import type { CdpClient } from "@coinbase/cdp-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSandbox, type Sandbox } from "cdp-sandbox";
import type { CdpOpenApiClient as GeneratedClient } from "../../node_modules/@coinbase/cdp-sdk/_types/openapi-client/index.js";
import { startReceiver, type Receiver } from "#test/helpers/receiver.js";
import { cdpClientFor } from "#test/helpers/cdpClient.js";

// The package does not export its generated client by name; this is the very module CdpClient configures.
const generatedPath = "../../node_modules/@coinbase/cdp-sdk/_esm/openapi-client/index.js";
const { CdpOpenApiClient: api } = (await import(generatedPath)) as { CdpOpenApiClient: typeof GeneratedClient };

let sandbox: Sandbox;
let cdp: CdpClient;
let receiver: Receiver;
beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, seed: "sdk-webhooks", validateResponses: true });
  sandbox.clock.freeze(true);
  cdp = cdpClientFor(sandbox);
  receiver = await startReceiver();
});
afterAll(async () => {
  await sandbox.close();
  await receiver.close();
});

const USDC_SEPOLIA = "0x036cbd53842c5426634e7929541ec2318f3dcf7e";
const flush = () => fetch(`${sandbox.url}/_sandbox/webhooks/flush`, { method: "POST" });

describe("@coinbase/cdp-sdk webhooks", () => {
  it("creates a subscription with cdp.webhooks.createSubscription and reads it back with the generated client", async () => {
    const sub = await cdp.webhooks.createSubscription({
      description: "Wallet transactions",
      eventTypes: ["wallet.transaction.confirmed", "wallet.transaction.failed"],
      targetUrl: receiver.url("/sdk/wallet"),
      targetHeaders: { "X-Team": "payments" },
      metadata: { env: "test" },
    });
    expect(sub).toMatchObject({
      description: "Wallet transactions",
      targetUrl: receiver.url("/sdk/wallet"),
      targetHeaders: { "X-Team": "payments" },
      isEnabled: true,
    });
    expect(sub.secret).toMatch(/^[0-9a-f-]{36}$/);
    const read = await api.getWebhookSubscription(sub.subscriptionId);
    expect(read).toMatchObject({ subscriptionId: sub.subscriptionId, secret: sub.secret, metadata: { env: "test", secret: sub.secret } });
    expect((await api.listWebhookSubscriptions({ pageSize: 10 })).subscriptions.map((s) => s.subscriptionId)).toContain(sub.subscriptionId);
  });

  it("reports a refused subscription as an APIError naming the problem", async () => {
    await expect(
      cdp.webhooks.createSubscription({ eventTypes: ["wallet.transaction.signed"], targetUrl: "https://example.com/h", description: "d".repeat(101) }),
    ).rejects.toMatchObject({
      statusCode: 400,
      errorType: "invalid_request",
      errorMessage: expect.stringMatching(/description/),
    });
    await expect(
      cdp.webhooks.createSubscription({ eventTypes: ["wallet.transaction.signed"], targetUrl: "https://example.com/h", targetHeaders: { Host: "elsewhere" } }),
    ).rejects.toMatchObject({
      statusCode: 400,
      errorMessage: expect.stringMatching(/target\.headers\.Host cannot be set/),
    });
  });

  it("delivers a faucet transfer made with the client, then updates, lists the events of and deletes the subscription", async () => {
    const account = await cdp.evm.createAccount();
    const sub = await api.createWebhookSubscription({
      eventTypes: ["onchain.activity.detected"],
      isEnabled: true,
      target: { url: receiver.url("/sdk/onchain") },
      labels: { network: "base-sepolia", contract_address: USDC_SEPOLIA, event_name: "Transfer", "params.to": account.address },
    });
    const { transactionHash } = await cdp.evm.requestFaucet({ address: account.address, network: "base-sepolia", token: "usdc" });
    sandbox.clock.advance(2000);
    await flush();
    const [got] = receiver.received("/sdk/onchain");
    expect(JSON.parse(got!.rawBody)).toMatchObject({
      event_name: "Transfer",
      transaction_hash: transactionHash,
      parameters: { to: account.address, value: "1000000" },
    });
    const parts = Object.fromEntries(
      String(got!.headers["x-hook0-signature"])
        .split(",")
        .map((p) => p.split("=") as [string, string]),
    );
    const values = parts
      .h!.split(" ")
      .map((n) => String(got!.headers[n]))
      .join(".");
    expect(createHmac("sha256", sub.secret).update(`${parts.t}.${parts.h}.${values}.${got!.rawBody}`).digest("hex")).toBe(parts.v1);

    const { events } = await api.listWebhookSubscriptionEvents(sub.subscriptionId, { eventTypeNames: "onchain.activity.detected" });
    expect(events).toMatchObject([{ eventId: got!.headers["x-event-id"], status: "succeeded", retryCount: 0 }]);

    const updated = await api.updateWebhookSubscription(sub.subscriptionId, {
      eventTypes: ["onchain.activity.detected"],
      isEnabled: false,
      target: { url: receiver.url("/sdk/onchain") },
      labels: { network: "base-sepolia", contract_address: USDC_SEPOLIA },
    });
    expect(updated).toMatchObject({ isEnabled: false, labels: { network: "base-sepolia", contract_address: USDC_SEPOLIA }, secret: sub.secret });
    await api.deleteWebhookSubscription(sub.subscriptionId);
    await expect(api.getWebhookSubscription(sub.subscriptionId)).rejects.toMatchObject({ statusCode: 404, errorType: "not_found" });
  });
});
