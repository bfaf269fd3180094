/**
 * Webhooks that really arrive: ledger activity reaches a local HTTP endpoint
 * once its block is mined on the sandbox clock, signed as the platform signs
 * (checked here with node:crypto from the documented scheme), filtered by
 * labels, retried with backoff, and never sent to disabled or deleted
 * subscriptions.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { encodeFunctionData, erc20Abi, keccak256, serializeTransaction, toHex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "cdp-sandbox";
import { startReceiver, type Received, type Receiver } from "#test/helpers/receiver.js";
import { call, fund, withSandbox } from "#test/helpers/sandbox.js";

let sandbox: Sandbox;
let receiver: Receiver;
beforeAll(async () => {
  // Interval mining: these tests deliver nothing until the clock mines the block (mine()).
  sandbox = await withSandbox({ seed: "webhook-delivery", validateResponses: true, mining: "interval" });
  sandbox.clock.freeze(true); // blocks are mined only when a test moves the clock
  receiver = await startReceiver();
});
afterAll(async () => {
  await sandbox.close();
  await receiver.close();
});

const BASE = "/platform/v2/data/webhooks/subscriptions";
const USDC = "0x036CbD53842c5426634e7929541eC2318f3dCF7e";
const TO = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
let paths = 0;
const newPath = () => `/hooks/${++paths}`;

/** The documented verification: HMAC-SHA256 over `${t}.${h}.${header values joined by "."}.${raw body}`, t within 5 minutes. */
function verifySignature(r: Received, secret: string): boolean {
  const parts = Object.fromEntries(
    String(r.headers["x-hook0-signature"])
      .split(",")
      .map((p) => [p.slice(0, p.indexOf("=")), p.slice(p.indexOf("=") + 1)]),
  );
  const values = parts
    .h!.split(" ")
    .map((name: string) => String(r.headers[name] ?? ""))
    .join(".");
  const expected = createHmac("sha256", secret).update(`${parts.t}.${parts.h}.${values}.${r.rawBody}`).digest();
  const fresh = Math.abs(Date.now() / 1000 - Number(parts.t)) < 300;
  return fresh && timingSafeEqual(expected, Buffer.from(parts.v1!, "hex"));
}

/** An onchain activity subscription; it watches USDC (the faucet's token) unless the labels name another contract. */
const subscribe = async (path: string, labels: Record<string, string>, extra: Record<string, unknown> = {}) => {
  const res = await call(sandbox, "POST", BASE, {
    body: {
      eventTypes: ["onchain.activity.detected"],
      isEnabled: true,
      target: { url: receiver.url(path) },
      labels: { contract_address: USDC, ...labels },
      ...extra,
    },
  });
  expect(res.status).toBe(201);
  return res.body as { subscriptionId: string; secret: string };
};
const newAccount = async () => (await call(sandbox, "POST", "/platform/v2/evm/accounts", { body: {}, wallet: true })).body.address as string;
const faucetUsdc = async (address: string) =>
  (await call(sandbox, "POST", "/platform/v2/evm/faucet", { body: { network: "base-sepolia", address, token: "usdc" } })).body.transactionHash as string;
const mine = () => sandbox.clock.advance(2000);
const flush = async () => (await call(sandbox, "POST", "/_sandbox/webhooks/flush", { anonymous: true })).body;
const events = async (subscriptionId: string, query = "") => (await call(sandbox, "GET", `${BASE}/${subscriptionId}/events${query}`)).body.events;
const sendUsdc = async (from: string, to: string, amount: bigint) => {
  const data = encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [to as `0x${string}`, amount] });
  const res = await call(sandbox, "POST", `/platform/v2/evm/accounts/${from}/send/transaction`, {
    body: { network: "base-sepolia", transaction: serializeTransaction({ type: "eip1559", chainId: 84532, to: USDC, data }) },
    wallet: true,
  });
  expect(res.status).toBe(200);
  return res.body.transactionHash as string;
};

describe("onchain.activity.detected from the ledger", () => {
  it("delivers a USDC faucet transfer, signed, once its block is mined", async () => {
    const path = newPath();
    const address = await newAccount();
    const sub = await subscribe(path, { network: "base-sepolia", contract_address: USDC.toLowerCase(), event_name: "Transfer", "params.to": address });
    const hash = await faucetUsdc(address);
    await flush();
    expect(receiver.received(path)).toHaveLength(0); // not mined yet

    mine();
    await flush();
    expect(receiver.received(path)).toHaveLength(1);
    const [got] = receiver.received(path);
    expect(got!.headers["content-type"]).toBe("application/json");
    expect(got!.headers["x-event-type"]).toBe("onchain.activity.detected");
    expect(verifySignature(got!, sub.secret)).toBe(true);
    expect(verifySignature(got!, "another-secret")).toBe(false);
    const body = JSON.parse(got!.rawBody);
    expect(body).toEqual({
      block_number: expect.any(Number),
      contract_address: USDC,
      event_name: "Transfer",
      event_signature: "Transfer(address,address,uint256)",
      log_index: 0,
      network: "base-sepolia",
      parameters: { from: expect.stringMatching(/^0x[0-9a-fA-F]{40}$/), to: address, value: "1000000" },
      timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
      transaction_from: body.parameters.from,
      transaction_hash: hash,
      transaction_to: USDC,
    });
    expect(Date.parse(body.timestamp)).toBeLessThanOrEqual(sandbox.clock.now());

    const [event] = await events(sub.subscriptionId);
    expect(event).toMatchObject({
      eventId: got!.headers["x-event-id"],
      eventTypeName: "onchain.activity.detected",
      status: "succeeded",
      retryCount: 0,
      response: { httpCode: 200, body: "ok" },
    });
    expect(event.succeededAt).toBe(sandbox.clock.iso());
  });

  it("delivers a sendEvmTransaction transfer to the subscriptions whose labels it carries, and only those", async () => {
    const from = await newAccount();
    await fund(sandbox, { network: "base-sepolia", address: from, amount: "1000000000000000" });
    await fund(sandbox, { network: "base-sepolia", address: from, token: "USDC", amount: "5000000" });
    const want = {
      byToken: await subscribe(newPath(), {
        network: "base-sepolia",
        contract_address: USDC,
        event_name: "Transfer",
        "params.to": TO.toLowerCase(),
        "params.value": "2500000",
      }),
      bySignatureHash: await subscribe(newPath(), {
        network: "base-sepolia",
        event_signature: keccak256(toHex("Transfer(address,address,uint256)")),
        transaction_from: from.toLowerCase(),
      }),
      bySignature: await subscribe(newPath(), { network: "base-sepolia", event_signature: "Transfer(address,address,uint256)", "params.from": from }),
    };
    const skip = {
      otherRecipient: await subscribe(newPath(), { network: "base-sepolia", "params.to": "0x0000000000000000000000000000000000000001" }),
      otherNetwork: await subscribe(newPath(), { network: "base-mainnet", contract_address: USDC }),
      otherEvent: await subscribe(newPath(), { network: "base-sepolia", event_name: "Approval", "params.owner": from }),
    };
    const hash = await sendUsdc(from, TO, 2_500_000n);
    mine();
    await flush();
    for (const [name, sub] of Object.entries(want)) {
      const got = await events(sub.subscriptionId);
      expect(got, name).toHaveLength(1);
      expect(got[0].status, name).toBe("succeeded");
    }
    for (const [name, sub] of Object.entries(skip)) expect(await events(sub.subscriptionId), name).toEqual([]);
    const bodies = receiver.received().filter((r) => JSON.parse(r.rawBody).transaction_hash === hash);
    expect(bodies).toHaveLength(3);
    expect(new Set(bodies.map((r) => r.headers["x-event-id"])).size).toBe(1); // one event, one id, in every subscription
    expect(JSON.parse(bodies[0]!.rawBody)).toMatchObject({ transaction_from: from, transaction_to: USDC, parameters: { from, to: TO, value: "2500000" } });
  });

  it("does not deliver blocks mined before the subscription existed", async () => {
    const path = newPath();
    const address = await newAccount();
    await faucetUsdc(address);
    mine();
    const sub = await subscribe(path, { network: "base-sepolia", "params.to": address });
    mine();
    await flush();
    expect(receiver.received(path)).toHaveLength(0);
    expect(await events(sub.subscriptionId)).toEqual([]);
  });

  it("sends the target's own headers and covers them with the signature", async () => {
    const path = newPath();
    const address = await newAccount();
    const sub = await subscribe(
      path,
      { network: "base-sepolia", "params.to": address },
      { target: { url: receiver.url(path), headers: { Authorization: "Bearer t0k3n", "X-Tenant": "acme" } } },
    );
    await faucetUsdc(address);
    mine();
    await flush();
    const [got] = receiver.received(path);
    expect(got!.headers.authorization).toBe("Bearer t0k3n");
    expect(String(got!.headers["x-hook0-signature"])).toMatch(/^t=\d+,h=authorization content-type x-event-id x-event-type x-tenant,v1=[0-9a-f]{64}$/);
    expect(verifySignature(got!, sub.secret)).toBe(true);
    expect(verifySignature({ ...got!, headers: { ...got!.headers, "x-tenant": "evil" } }, sub.secret)).toBe(false);
  });
});

describe("wallet.activity.detected from the ledger", () => {
  it("delivers a token transfer to the watched address in the platform's envelope", async () => {
    const path = newPath();
    const address = await newAccount();
    const res = await call(sandbox, "POST", BASE, {
      body: {
        eventTypes: ["wallet.activity.detected", "onchain.activity.detected"],
        isEnabled: true,
        target: { url: receiver.url(path) },
        labels: { network: "base-sepolia", contract_address: USDC, "params.to": address },
      },
    });
    const hash = await faucetUsdc(address);
    mine();
    await flush();
    const got = receiver.received(path);
    expect(got.map((r) => r.headers["x-event-type"]).sort()).toEqual(["onchain.activity.detected", "wallet.activity.detected"]);
    const wallet = got.find((r) => r.headers["x-event-type"] === "wallet.activity.detected")!;
    expect(verifySignature(wallet, res.body.secret)).toBe(true);
    const body = JSON.parse(wallet.rawBody);
    expect(body).toEqual({
      eventId: wallet.headers["x-event-id"],
      timestamp: expect.stringMatching(/Z$/),
      data: {
        network: "base-sepolia",
        blockNumber: expect.stringMatching(/^\d+$/),
        blockTimestamp: body.timestamp,
        transactionHash: hash,
        logIndex: "0",
        contractAddress: USDC,
        eventName: "Transfer",
        from: expect.stringMatching(/^0x[0-9a-fA-F]{40}$/),
        to: address,
        value: "1000000",
      },
      eventType: "wallet.activity.detected",
    });
    expect(body.eventId).not.toBe(got.find((r) => r.headers["x-event-type"] === "onchain.activity.detected")!.headers["x-event-id"]);
  });
});

describe("retries", () => {
  it("retries a failing endpoint with backoff on the sandbox clock, and the events list shows the attempts", async () => {
    const path = newPath();
    receiver.answer(path, [500, 503]);
    const address = await newAccount();
    const sub = await subscribe(path, { network: "base-sepolia", "params.to": address });
    await faucetUsdc(address);
    mine();
    await flush();
    expect(await events(sub.subscriptionId)).toMatchObject([
      { status: "retrying", retryCount: 0, response: { httpCode: 500, errorName: "http_error", body: "not now" } },
    ]);

    sandbox.clock.advance(2_999);
    await flush();
    expect(receiver.received(path)).toHaveLength(1); // the first retry is due 3 s after the first attempt
    sandbox.clock.advance(1);
    await flush();
    expect(await events(sub.subscriptionId)).toMatchObject([{ status: "retrying", retryCount: 1, response: { httpCode: 503 } }]);

    sandbox.clock.advance(10_000);
    await flush();
    const [event] = await events(sub.subscriptionId);
    expect(event).toMatchObject({ status: "succeeded", retryCount: 2, response: { httpCode: 200 } });
    expect(event.succeededAt).toBe(sandbox.clock.iso());
    const got = receiver.received(path);
    expect(got).toHaveLength(3);
    expect(new Set(got.map((r) => r.rawBody)).size).toBe(1);
    expect(new Set(got.map((r) => r.headers["x-event-id"])).size).toBe(1);
    expect(got.every((r) => verifySignature(r, sub.secret))).toBe(true);
  });

  it("gives up after 60 retries and marks the delivery failed", async () => {
    const path = newPath();
    receiver.answer(
      path,
      Array.from({ length: 70 }, () => 500),
    );
    const address = await newAccount();
    const sub = await subscribe(path, { network: "base-sepolia", "params.to": address });
    await faucetUsdc(address);
    mine();
    await flush();
    for (let i = 0; i < 65; i++) {
      sandbox.clock.advance(10 * 3600_000);
      await flush();
    }
    expect(receiver.received(path)).toHaveLength(61);
    expect(await events(sub.subscriptionId)).toMatchObject([{ status: "failed", retryCount: 60, response: { httpCode: 500 } }]);
  }, 60_000);

  it("records an unreachable target as connection_refused and retries it", async () => {
    const gone = await startReceiver();
    const url = gone.url("/closed");
    await gone.close();
    const address = await newAccount();
    const sub = await subscribe("/unused", { network: "base-sepolia", "params.to": address }, { target: { url } });
    await faucetUsdc(address);
    mine();
    await flush();
    expect(await events(sub.subscriptionId)).toMatchObject([{ status: "retrying", retryCount: 0, response: { errorName: "connection_refused" } }]);
  });
});

describe("disabled and deleted subscriptions", () => {
  it("sends nothing to a disabled subscription, and after re-enabling only what is mined from then on", async () => {
    const path = newPath();
    const address = await newAccount();
    const sub = await subscribe(path, { network: "base-sepolia", "params.to": address }, { isEnabled: false });
    await faucetUsdc(address);
    mine();
    await flush();
    expect(receiver.received(path)).toHaveLength(0);
    expect(await events(sub.subscriptionId)).toEqual([]);

    const config = {
      eventTypes: ["onchain.activity.detected"],
      isEnabled: true,
      target: { url: receiver.url(path) },
      labels: { network: "base-sepolia", contract_address: USDC, "params.to": address },
    };
    expect((await call(sandbox, "PUT", `${BASE}/${sub.subscriptionId}`, { body: config })).status).toBe(200);
    await flush();
    expect(receiver.received(path)).toHaveLength(0); // the transfer mined while disabled stays undelivered
    const second = await faucetUsdc(address);
    mine();
    await flush();
    expect(receiver.received(path).map((r) => JSON.parse(r.rawBody).transaction_hash)).toEqual([second]);
  });

  it("stops retrying once the subscription is disabled", async () => {
    const path = newPath();
    receiver.answer(path, [500, 500, 500]);
    const address = await newAccount();
    const sub = await subscribe(path, { network: "base-sepolia", "params.to": address });
    await faucetUsdc(address);
    mine();
    await flush();
    const config = {
      eventTypes: ["onchain.activity.detected"],
      isEnabled: false,
      target: { url: receiver.url(path) },
      labels: { network: "base-sepolia", contract_address: USDC, "params.to": address },
    };
    await call(sandbox, "PUT", `${BASE}/${sub.subscriptionId}`, { body: config });
    sandbox.clock.advance(60_000);
    await flush();
    expect(receiver.received(path)).toHaveLength(1);
    expect(await events(sub.subscriptionId)).toMatchObject([{ status: "failed", retryCount: 1, response: { errorName: "subscription_disabled" } }]);
  });

  it("sends nothing more to a deleted subscription", async () => {
    const path = newPath();
    receiver.answer(path, [500]);
    const address = await newAccount();
    const sub = await subscribe(path, { network: "base-sepolia", "params.to": address });
    await faucetUsdc(address);
    mine();
    await flush();
    expect((await call(sandbox, "DELETE", `${BASE}/${sub.subscriptionId}`)).status).toBe(204);
    await faucetUsdc(address);
    sandbox.clock.advance(60_000);
    await flush();
    expect(receiver.received(path)).toHaveLength(1); // the first attempt only: no retry, no new event
  });
});
