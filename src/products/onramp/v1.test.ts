/**
 * Onramp v1 on the node's host, as OnchainKit's Fund components call it with the client API key as a bearer:
 * the config, the options of a region, a quote priced like a v2 order, and a user's transactions read from the
 * project's v2 orders as the sandbox clock moves them; a missing or rotated key is 401; browsers may call it.
 */
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "cdp-sandbox";
import { createOrder, orderBody } from "#test/helpers/onramp.js";
import { call, withSandbox } from "#test/helpers/sandbox.js";

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await withSandbox({ seed: "onramp-v1" });
});
afterAll(() => sandbox.close());

const v1 = (path: string, key = sandbox.credentials.clientApiKey) => request(sandbox.url).get(`/onramp/v1${path}`).set("Authorization", `Bearer ${key}`);

describe("Onramp v1 with the client API key", () => {
  it("lists where the onramp sells and the payment methods there", async () => {
    const config = await v1("/buy/config");
    expect(config.status).toBe(200);
    expect(config.body.countries).toEqual([{ id: "US", subdivisions: ["NY"], payment_methods: expect.arrayContaining([{ id: "CARD" }, { id: "ACH" }]) }]);
  });

  it("lists the assets of a region with their networks, restricted where the region's rules say so", async () => {
    const options = await v1("/buy/options?country=US");
    expect(options.status).toBe(200);
    const usdc = options.body.purchase_currencies.find((c: { id: string }) => c.id === "USDC");
    expect(usdc.networks).toEqual([
      { name: "base", display_name: "base", chain_id: "8453", contract_address: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913" },
      { name: "ethereum", display_name: "ethereum", chain_id: "1", contract_address: "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48" },
      expect.objectContaining({ name: "solana", contract_address: expect.any(String) }),
    ]);
    expect(options.body.payment_currencies.map((c: { id: string }) => c.id)).toEqual(["USD", "EUR", "GBP"]);
    const ny = await v1("/buy/options?country=US&subdivision=NY");
    const nyUsdc = ny.body.purchase_currencies.find((c: { id: string }) => c.id === "USDC");
    expect(nyUsdc.networks.map((n: { name: string }) => n.name)).toEqual(["ethereum"]);
    const elsewhere = await v1("/buy/options?country=FR");
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.body.errorType).toBe("invalid_request");
  });

  it("quotes as a v2 order prices: $20 by card for USDC on base (what the same v2 quote says)", async () => {
    const body = {
      purchase_currency: "USDC",
      purchase_network: "base",
      payment_currency: "USD",
      payment_method: "CARD",
      payment_amount: "20.00",
      country: "US",
    };
    const quote = await request(sandbox.url).post("/onramp/v1/buy/quote").set("Authorization", `Bearer ${sandbox.credentials.clientApiKey}`).send(body);
    expect(quote.status).toBe(200);
    // Apple Pay as a guest costs what a card does (2.5 %): the same prices.
    const v2 = await createOrder(sandbox, orderBody(sandbox, { isQuote: true }));
    const order = v2.body.order;
    expect(quote.body).toEqual({
      payment_total: { value: order.paymentTotal, currency: "USD" },
      payment_subtotal: { value: order.paymentSubtotal, currency: "USD" },
      purchase_amount: { value: order.purchaseAmount, currency: "USDC" },
      coinbase_fee: { value: order.fees[0].amount, currency: "USD" },
      network_fee: { value: order.fees[1].amount, currency: "USD" },
      quote_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
    const wrong = await request(sandbox.url)
      .post("/onramp/v1/buy/quote")
      .set("Authorization", `Bearer ${sandbox.credentials.clientApiKey}`)
      .send({ ...body, purchase_network: "polygon" });
    expect(wrong.status).toBe(400);
  });

  it("lists a user's transactions from the project's orders, their status following the sandbox clock", async () => {
    const created = await createOrder(sandbox, orderBody(sandbox, { partnerUserRef: "v1-user" }));
    expect(created.status).toBe(201);
    const before = await v1("/buy/user/v1-user/transactions?page_key=&page_size=10");
    expect(before.status).toBe(200);
    expect(before.body).toMatchObject({ total_count: "1", next_page_key: "" });
    expect(before.body.transactions[0]).toMatchObject({
      status: "ONRAMP_TRANSACTION_STATUS_CREATED",
      transaction_id: created.body.order.orderId,
      purchase_currency: "USDC",
      purchase_network: "base",
      user_id: "v1-user",
      tx_hash: "",
    });
    sandbox.clock.advance(120_000);
    const after = await v1("/buy/user/v1-user/transactions?page_key=&page_size=10");
    expect(after.body.transactions[0]).toMatchObject({ status: "ONRAMP_TRANSACTION_STATUS_SUCCESS", tx_hash: expect.stringMatching(/^0x/) });
    expect((await v1("/buy/user/nobody/transactions")).body).toEqual({ transactions: [], next_page_key: "", total_count: "0" });
  });

  it("refuses a missing, unknown or rotated key with 401, and answers browsers' preflights", async () => {
    expect((await request(sandbox.url).get("/onramp/v1/buy/config")).status).toBe(401);
    const other = await sandbox.createProject("rotating");
    expect((await v1("/buy/config", other.clientApiKey)).status).toBe(200);
    await call(sandbox, "POST", `/_sandbox/projects/${other.projectId}/client-api-key/rotate`, { anonymous: true });
    const refused = await v1("/buy/config", other.clientApiKey);
    expect(refused.status).toBe(401);
    expect(refused.body.errorType).toBe("unauthorized");
    const preflight = await request(sandbox.url)
      .options("/onramp/v1/buy/quote")
      .set("Origin", "http://localhost:3000")
      .set("Access-Control-Request-Method", "POST")
      .set("Access-Control-Request-Headers", "authorization");
    expect(preflight.status).toBe(204);
    expect(preflight.headers["access-control-allow-origin"]).toBe("http://localhost:3000");
  });
});
