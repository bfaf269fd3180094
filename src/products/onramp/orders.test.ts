/**
 * Guest-checkout orders over HTTP: pricing from the documented table, the
 * payment link, the status walk on the sandbox clock, and the delivery on the
 * project's ledger (balances, node receipt) once the order completes.
 */
import request from "supertest";
import { createPublicClient, erc20Abi, http, parseEventLogs, type PublicClient } from "viem";
import { base } from "viem/chains";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "cdp-sandbox";
import { createOrder, EVM_DESTINATION, getOrder, openPage, orderBody, SOLANA_DESTINATION } from "#test/helpers/onramp.js";
import { call, hostOf, withSandbox } from "#test/helpers/sandbox.js";
import { mintBearer } from "#test/helpers/tokens.js";

let sandbox: Sandbox;
const USDC_BASE = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913";

beforeAll(async () => {
  sandbox = await withSandbox({ seed: "onramp-orders", validateResponses: true });
});
afterAll(() => sandbox.close());

const advance = (ms: number) => sandbox.clock.advance(ms);
const newAddress = async () => (await call(sandbox, "POST", "/platform/v2/evm/accounts", { body: {}, wallet: true })).body.address as `0x${string}`;

async function node(network: string): Promise<PublicClient> {
  const path = "/apikeys/v1/tokens/active";
  const token = await mintBearer(sandbox.credentials.apiKeyId, sandbox.credentials.apiKeySecret, { method: "GET", host: `http://${hostOf(sandbox)}`, path });
  const active = await request(sandbox.url).get(path).set("Authorization", `Bearer ${token}`);
  return createPublicClient({ chain: base, transport: http(`${sandbox.url}/rpc/v1/${network}/${active.body.id}`) }) as PublicClient;
}

describe("creating an order", () => {
  it("prices a fee-inclusive paymentAmount from the table and answers with an Apple Pay payment link", async () => {
    const res = await createOrder(sandbox, orderBody(sandbox));
    expect(res.status).toBe(201);
    const { order, paymentLink } = res.body;
    expect(order).toMatchObject({
      paymentTotal: "20.00",
      paymentSubtotal: "19.41",
      paymentCurrency: "USD",
      paymentMethod: "GUEST_CHECKOUT_APPLE_PAY",
      purchaseAmount: "19.410000",
      purchaseCurrency: "USDC",
      fees: [
        { type: "FEE_TYPE_EXCHANGE", amount: "0.49", currency: "USD" },
        { type: "FEE_TYPE_NETWORK", amount: "0.10", currency: "USD" },
      ],
      exchangeRate: "1",
      destinationAddress: EVM_DESTINATION,
      destinationNetwork: "base",
      status: "ONRAMP_ORDER_STATUS_PENDING_AUTH",
      partnerUserRef: "user-42",
    });
    expect(order.orderId).toMatch(/^[a-f0-9-]{36}$/);
    expect(order.txHash).toBeUndefined();
    expect(order.createdAt).toBe(order.updatedAt);
    expect(paymentLink.paymentLinkType).toBe("PAYMENT_LINK_TYPE_APPLE_PAY_BUTTON");
    expect(paymentLink.url).toMatch(new RegExp(`^${sandbox.url}/_sandbox/onramp/apple-pay\\?sessionToken=[A-Za-z0-9_-]+$`));
  });

  it("prices a fee-exclusive purchaseAmount: the buyer receives exactly that and pays fees on top", async () => {
    const res = await createOrder(
      sandbox,
      orderBody(sandbox, { paymentAmount: undefined, purchaseAmount: "0.01", purchaseCurrency: "ETH", destinationNetwork: "ethereum" }),
    );
    expect(res.status).toBe(201);
    expect(res.body.order).toMatchObject({
      purchaseAmount: "0.01000000",
      paymentSubtotal: "30.00",
      paymentTotal: "32.25",
      fees: [
        { type: "FEE_TYPE_EXCHANGE", amount: "0.75", currency: "USD" },
        { type: "FEE_TYPE_NETWORK", amount: "1.50", currency: "USD" },
      ],
      exchangeRate: "0.00033333",
    });
  });

  it("answers a Google Pay order with a Google Pay button link, with the locale appended", async () => {
    const res = await createOrder(sandbox, orderBody(sandbox, { paymentMethod: "GUEST_CHECKOUT_GOOGLE_PAY", locale: "es-ES" }));
    expect(res.status).toBe(201);
    expect(res.body.paymentLink.paymentLinkType).toBe("PAYMENT_LINK_TYPE_GOOGLE_PAY_BUTTON");
    expect(res.body.paymentLink.url).toMatch(/\/_sandbox\/onramp\/google-pay\?sessionToken=[^&]+&locale=es-ES$/);
  });

  it("quotes without creating anything when isQuote is true", async () => {
    const res = await createOrder(sandbox, orderBody(sandbox, { isQuote: true }));
    expect(res.status).toBe(201);
    expect(res.body.paymentLink).toBeUndefined();
    expect(res.body.order.paymentTotal).toBe("20.00");
    expect((await getOrder(sandbox, res.body.order.orderId)).status).toBe(404);
  });

  it.each([
    ["both amounts", { purchaseAmount: "5" }, /either paymentAmount or purchaseAmount, not both/],
    ["no amount", { paymentAmount: undefined }, /Either paymentAmount .* or purchaseAmount/],
    ["an amount that is not a decimal", { paymentAmount: "20,00" }, /paymentAmount must be a decimal amount/],
    ["cents below a cent", { paymentAmount: "20.001" }, /more than 2 decimal places/],
    ["an amount below the fees", { paymentAmount: "0.10" }, /does not cover the fees/],
    ["an asset the onramp does not sell", { purchaseCurrency: "DOGE" }, /cannot be bought here/],
    [
      "an asset on a network where it is not sold",
      { purchaseCurrency: "SOL", destinationNetwork: "base" },
      /SOL cannot be bought on base; it is sold on solana/,
    ],
    ["a testnet", { destinationNetwork: "base-sepolia" }, /USDC cannot be bought on base-sepolia/],
    ["an address of another chain", { destinationNetwork: "solana" }, /not valid for solana/],
    ["a payment currency other than USD", { paymentCurrency: "EUR" }, /Guest checkout is paid in USD/],
    ["a missing email", { email: undefined }, /missing email/],
    ["a phone number not in E.164 form", { phoneNumber: "415-555-0100" }, /E\.164/],
    ["no phone verification at all", { phoneNumberVerifiedAt: undefined }, /phoneNumberVerifiedAt .* or smsVerificationId is required/],
    ["a verification time that is not a timestamp", { phoneNumberVerifiedAt: "yesterday" }, /phoneNumberVerifiedAt/],
    ["an agreement accepted in the future", { agreementAcceptedAt: "2999-01-01T00:00:00Z" }, /agreementAcceptedAt .* is in the future/],
    ["embedded mode on a project without it", { phoneNumber: undefined, email: undefined }, /embedded mode, which is not enabled/],
  ])("refuses %s with 400 invalid_request", async (_case, overrides, message) => {
    const res = await createOrder(sandbox, orderBody(sandbox, overrides));
    expect(res.status).toBe(400);
    expect(res.body.errorType).toBe("invalid_request");
    expect(res.body.errorMessage).toMatch(message);
    expect(res.body.correlationId).toBeTruthy();
  });
});

describe("an order on the sandbox clock", () => {
  it("walks PENDING_AUTH → PENDING_PAYMENT → PROCESSING → COMPLETED and delivers the USDC with the txHash's transaction", async () => {
    const holder = await newAddress();
    const created = await createOrder(sandbox, orderBody(sandbox, { destinationAddress: holder }));
    const id = created.body.order.orderId as string;
    const createdAt = Date.parse(created.body.order.createdAt);
    const statusOf = async () => (await getOrder(sandbox, id)).body.order;
    const balances = async () => (await call(sandbox, "GET", `/platform/v2/evm/token-balances/base/${holder}`)).body.balances;

    expect((await statusOf()).status).toBe("ONRAMP_ORDER_STATUS_PENDING_AUTH");
    advance(15_000);
    const paying = await statusOf();
    expect(paying.status).toBe("ONRAMP_ORDER_STATUS_PENDING_PAYMENT");
    expect(Date.parse(paying.updatedAt)).toBe(createdAt + 15_000);
    advance(15_000);
    expect((await statusOf()).status).toBe("ONRAMP_ORDER_STATUS_PROCESSING");
    advance(29_000);
    const processing = await statusOf();
    expect(processing.status).toBe("ONRAMP_ORDER_STATUS_PROCESSING");
    expect(processing.txHash).toBeUndefined();
    expect(await balances()).toEqual([]);

    advance(1_000);
    const done = await statusOf();
    expect(done.status).toBe("ONRAMP_ORDER_STATUS_COMPLETED");
    expect(done.txHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(Date.parse(done.updatedAt)).toBe(createdAt + 60_000);
    expect(await balances()).toEqual([
      { amount: { amount: "19410000", decimals: 6 }, token: { network: "base", contractAddress: USDC_BASE, symbol: "USDC", name: "USD Coin" } },
    ]);

    const client = await node("base");
    const receipt = await client.getTransactionReceipt({ hash: done.txHash });
    expect(receipt.status).toBe("success");
    const [transfer] = parseEventLogs({ abi: erc20Abi, logs: receipt.logs, eventName: "Transfer" });
    expect(transfer!.args.to.toLowerCase()).toBe(holder.toLowerCase());
    expect(transfer!.args.value).toBe(19_410_000n);
    expect(await client.readContract({ address: USDC_BASE, abi: erc20Abi, functionName: "balanceOf", args: [holder] })).toBe(19_410_000n);

    advance(3_600_000);
    expect(await statusOf()).toEqual(done); // completed is final
    expect((await balances())[0].amount.amount).toBe("19410000"); // delivered once
  });

  it("delivers even when nobody reads the order: the node sees the ETH once the clock has passed completion", async () => {
    const holder = await newAddress();
    const created = await createOrder(
      sandbox,
      orderBody(sandbox, { destinationAddress: holder, purchaseCurrency: "ETH", paymentAmount: undefined, purchaseAmount: "0.002" }),
    );
    expect(created.status).toBe(201);
    const client = await node("base");
    expect(await client.getBalance({ address: holder })).toBe(0n);
    advance(60_000);
    expect(await client.getBalance({ address: holder })).toBe(2_000_000_000_000_000n);
  });

  it("delivers SOL to a Solana address, with a base-58 signature as txHash", async () => {
    const created = await createOrder(
      sandbox,
      orderBody(sandbox, { purchaseCurrency: "SOL", destinationNetwork: "solana", destinationAddress: SOLANA_DESTINATION, paymentAmount: "15.00" }),
    );
    expect(created.status).toBe(201);
    // 15.00 = 14.58 subtotal + 0.37 exchange (2.5 %, rounded into the subtotal's favour) + 0.05 network; 14.58 / 150 SOL
    expect(created.body.order).toMatchObject({ paymentSubtotal: "14.58", purchaseAmount: "0.097200000", exchangeRate: "0.006666666" });
    advance(60_000);
    const done = (await getOrder(sandbox, created.body.order.orderId)).body.order;
    expect(done.status).toBe("ONRAMP_ORDER_STATUS_COMPLETED");
    expect(done.txHash).toMatch(/^[1-9A-HJ-NP-Za-km-z]{64,88}$/);
    const balances = await call(sandbox, "GET", `/platform/v2/solana/token-balances/solana/${SOLANA_DESTINATION}`);
    expect(balances.body.balances[0]).toMatchObject({ amount: { amount: "97200000", decimals: 9 }, token: { symbol: "SOL" } });
  });

  it("fails at authorization for the declining test number, and delivers nothing", async () => {
    const holder = await newAddress();
    const created = await createOrder(sandbox, orderBody(sandbox, { destinationAddress: holder, phoneNumber: "+15005550002" }));
    expect(created.body.order.status).toBe("ONRAMP_ORDER_STATUS_PENDING_AUTH");
    advance(15_000);
    const failed = (await getOrder(sandbox, created.body.order.orderId)).body.order;
    expect(failed.status).toBe("ONRAMP_ORDER_STATUS_FAILED");
    expect(failed.txHash).toBeUndefined();
    advance(3_600_000);
    expect((await getOrder(sandbox, created.body.order.orderId)).body.order.status).toBe("ONRAMP_ORDER_STATUS_FAILED");
    expect((await call(sandbox, "GET", `/platform/v2/evm/token-balances/base/${holder}`)).body.balances).toEqual([]);
  });

  it("runs an embedded order (project setting onrampEmbeddedEnabled) from PENDING_VERIFICATION to COMPLETED in 90 s", async () => {
    const project = await sandbox.createProject("embedded");
    await request(sandbox.url)
      .patch(`/_sandbox/projects/${project.projectId}`)
      .send({ settings: { onrampEmbeddedEnabled: true } });
    const created = await createOrder(
      sandbox,
      orderBody(sandbox, { phoneNumber: undefined, email: undefined, phoneNumberVerifiedAt: undefined, agreementAcceptedAt: undefined }),
      project,
    );
    expect(created.status).toBe(201);
    expect(created.body.order.status).toBe("ONRAMP_ORDER_STATUS_PENDING_VERIFICATION");
    expect(created.body.paymentLink.paymentLinkType).toBe("PAYMENT_LINK_TYPE_EMBEDDED_ORDER");
    const seen: string[] = [];
    for (const step of [30_000, 15_000, 15_000, 30_000]) {
      advance(step);
      seen.push((await getOrder(sandbox, created.body.order.orderId, project)).body.order.status);
    }
    expect(seen).toEqual([
      "ONRAMP_ORDER_STATUS_PENDING_AUTH",
      "ONRAMP_ORDER_STATUS_PENDING_PAYMENT",
      "ONRAMP_ORDER_STATUS_PROCESSING",
      "ONRAMP_ORDER_STATUS_COMPLETED",
    ]);
  });
});

describe("reading an order", () => {
  it("answers 404 not_found for an id that does not exist, and for another project's order", async () => {
    const missing = await getOrder(sandbox, "123e4567-e89b-42d3-a456-426614174000");
    expect(missing.status).toBe(404);
    expect(missing.body.errorType).toBe("not_found");
    const created = await createOrder(sandbox, orderBody(sandbox));
    const other = await sandbox.createProject("other");
    expect((await getOrder(sandbox, created.body.order.orderId, other)).status).toBe(404);
  });

  it("answers 400 invalid_request for an id that is not an order id", async () => {
    const res = await getOrder(sandbox, "not-an-order");
    expect(res.status).toBe(400);
    expect(res.body.errorType).toBe("invalid_request");
  });
});

describe("the payment link", () => {
  it("shows the order while the buyer has not paid, and is no longer valid afterwards", async () => {
    const created = await createOrder(sandbox, orderBody(sandbox));
    const open = await openPage(created.body.paymentLink.url);
    expect(open.status).toBe(200);
    expect(open.body).toMatchObject({ page: "apple-pay", order: { orderId: created.body.order.orderId, status: "ONRAMP_ORDER_STATUS_PENDING_AUTH" } });
    const html = await openPage(created.body.paymentLink.url, "text/html");
    expect(html.headers["content-type"]).toMatch(/text\/html/);
    expect(html.text).toContain("Pay with Apple Pay");
    advance(15_000);
    const late = await openPage(created.body.paymentLink.url);
    expect(late.status).toBe(403);
    expect(late.body.errorType).toBe("forbidden");
    expect(late.body.errorMessage).toMatch(/no longer valid/);
  });

  it("is not found under another wallet's path or with an unknown token", async () => {
    const created = await createOrder(sandbox, orderBody(sandbox));
    expect((await openPage(created.body.paymentLink.url.replace("apple-pay", "google-pay"))).status).toBe(404);
    expect((await openPage(`${sandbox.url}/_sandbox/onramp/apple-pay?sessionToken=nope`)).status).toBe(404);
  });
});
