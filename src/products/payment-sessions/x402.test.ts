/**
 * A session's x402Url paid by the x402 packages' own client (@x402/fetch with
 * the exact EVM scheme, signing with a viem account): the first request gets
 * 402 and the PAYMENT-REQUIRED header, the client signs and retries, and the
 * authorization lands on the sandbox clock. A bad payment is a 402 again and
 * changes nothing.
 */
import { x402Client } from "@x402/core/client";
import { decodePaymentResponseHeader, wrapFetchWithPayment } from "@x402/fetch";
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "cdp-sandbox";
import { tokenBalance } from "#test/helpers/afterCommit.js";
import { createSession, fundUsdc, getSession, LANDS_MS, signerOf, USDC } from "#test/helpers/paymentSessions.js";
import { call, withSandbox } from "#test/helpers/sandbox.js";
import { signAuthorization, v2Body } from "#test/helpers/x402.js";

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await withSandbox({ seed: "payment-sessions-x402" });
  sandbox.clock.freeze(true);
});
afterAll(() => sandbox.close());

const usdc = async (address: string) => String(Number(await tokenBalance(sandbox, "evm", "base-sepolia", address, "USDC")) / 1e6);
const decode = (header: string | null) => JSON.parse(Buffer.from(header ?? "", "base64").toString("utf8"));

describe("authorizeX402PaymentSession", () => {
  it("asks for the payment with 402, and the x402 client's signed retry becomes the session's authorization", async () => {
    const payer = privateKeyToAccount(generatePrivateKey());
    await fundUsdc(sandbox, payer.address, "5000000");
    const s = await createSession(sandbox, privateKeyToAccount(generatePrivateKey()).address, "0.75");

    const unpaid = await fetch(s.x402Url, { method: "POST" });
    expect(unpaid.status).toBe(402);
    expect((await unpaid.json()).errorType).toBe("payment_required");
    const required = decode(unpaid.headers.get("payment-required"));
    expect(required).toMatchObject({ x402Version: 2, resource: { url: s.x402Url } });
    expect(required.accepts).toEqual([
      expect.objectContaining({ scheme: "exact", network: "eip155:84532", amount: "750000", asset: USDC, extra: { name: "USDC", version: "2" } }),
    ]);

    // The x402 packages' own client pays: it reads the header, signs with viem, retries with PAYMENT-SIGNATURE.
    let sent: string | undefined;
    const spy: typeof fetch = (input, init) => {
      const request = new Request(input, init);
      sent = request.headers.get("payment-signature") ?? sent;
      return fetch(request);
    };
    const client = registerExactEvmScheme(new x402Client(), { signer: payer });
    const paid = await wrapFetchWithPayment(spy, client)(s.x402Url, { method: "POST" });
    expect(paid.status).toBe(200);
    const authorization = await paid.json();
    expect(authorization).toMatchObject({ paymentSessionId: s.paymentSessionId, status: "pending", amount: "0.75", source: { address: payer.address } });
    const settlement = decodePaymentResponseHeader(paid.headers.get("payment-response")!);
    expect(settlement).toMatchObject({ success: true, network: "eip155:84532", payer: payer.address });

    // What the client signed is the payer's own EIP-3009 authorization over USDC's domain.
    const signed = decode(sent!).payload as { signature: `0x${string}`; authorization: Parameters<typeof signerOf>[0] };
    expect(await signerOf(signed.authorization, signed.signature)).toBe(payer.address);

    sandbox.clock.advance(LANDS_MS);
    const landed = await getSession(sandbox, s.paymentSessionId);
    expect(landed).toMatchObject({ status: "authorization_succeeded", balances: { capturable: "0.75" } });
    expect(landed.authorizations[0].onchainTransactions[0].transactionHash).toBe(settlement.transaction);
    expect(await usdc(payer.address)).toBe("4.25");
  });

  it("spends the signed authorization's nonce: the same payment cannot then be settled through the facilitator", async () => {
    const payer = privateKeyToAccount(generatePrivateKey());
    await fundUsdc(sandbox, payer.address, "5000000");
    const s = await createSession(sandbox, privateKeyToAccount(generatePrivateKey()).address, "1");
    const accepted = decode((await fetch(s.x402Url, { method: "POST" })).headers.get("payment-required")).accepts[0];
    const payload = await signAuthorization(payer, { to: accepted.payTo, value: "1000000", nowSeconds: Math.floor(sandbox.clock.now() / 1000) });
    const header = Buffer.from(JSON.stringify({ x402Version: 2, accepted, payload })).toString("base64");
    expect((await fetch(s.x402Url, { method: "POST", headers: { "PAYMENT-SIGNATURE": header } })).status).toBe(200);
    sandbox.clock.advance(LANDS_MS);
    const settled = await call(sandbox, "POST", "/platform/v2/x402/settle", { body: v2Body(accepted, payload) });
    expect(settled.body.success).toBe(false);
    expect(await usdc(payer.address)).toBe("4");
  });

  it("answers 402 again, with the reason, to a payment of the wrong amount or signer, and changes nothing", async () => {
    const payer = privateKeyToAccount(generatePrivateKey());
    await fundUsdc(sandbox, payer.address, "5000000");
    const s = await createSession(sandbox, privateKeyToAccount(generatePrivateKey()).address, "1");
    const required = decode((await fetch(s.x402Url, { method: "POST" })).headers.get("payment-required"));
    const accepted = required.accepts[0];
    const nowSeconds = Math.floor(sandbox.clock.now() / 1000);
    const pay = async (payload: unknown) =>
      fetch(s.x402Url, {
        method: "POST",
        headers: { "PAYMENT-SIGNATURE": Buffer.from(JSON.stringify({ x402Version: 2, accepted, payload })).toString("base64") },
      });

    const short = await signAuthorization(payer, { to: accepted.payTo, value: "999999", nowSeconds });
    const underpaid = await pay(short);
    expect(underpaid.status).toBe(402);
    expect(decode(underpaid.headers.get("payment-required")).error).toMatch(/amount|value/i);

    const forged = await signAuthorization(privateKeyToAccount(generatePrivateKey()), { to: accepted.payTo, value: "1000000", nowSeconds });
    const wrongSigner = await pay({ ...forged, authorization: { ...forged.authorization, from: payer.address } });
    expect(wrongSigner.status).toBe(402);
    expect(decode(wrongSigner.headers.get("payment-required")).error).toMatch(/signature/i);

    expect(await getSession(sandbox, s.paymentSessionId)).toMatchObject({ status: "created" });
    sandbox.clock.advance(LANDS_MS);
    expect(await usdc(payer.address)).toBe("5");
  });
});
