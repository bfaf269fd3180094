/**
 * Payment Sessions and Disbursements through @coinbase/cdp-sdk 1.57. The
 * client has no high-level methods for them; its generated API has every
 * operation, reached through the same HTTP client CdpClient configures. A
 * merchant creates a session, a payer holding a CDP account reads the wallet
 * options, signs the offered typed data with `account.signTypedData` and
 * authorizes; the merchant captures, refunds from a custodial account and
 * pays a disbursement. Signatures are checked with viem.
 */
import type { CdpClient } from "@coinbase/cdp-sdk";
import { recoverTypedDataAddress, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSandbox, type Sandbox } from "cdp-sandbox";
import { fundAccount, openAccount } from "#test/helpers/money.js";
import { fundUsdc, LANDS_MS, USDC_DOMAIN } from "#test/helpers/paymentSessions.js";
import { TRANSFER_WITH_AUTHORIZATION } from "#test/helpers/x402.js";
import { cdpClientFor } from "#test/helpers/cdpClient.js";

// The package does not export its generated client by name; this is the very module CdpClient configures, whose
// Payment Sessions and Disbursements functions are module exports (not members of its CdpOpenApiClient object).
const generatedPath = "../../node_modules/@coinbase/cdp-sdk/_esm/openapi-client/index.js";
const api = (await import(generatedPath)) as typeof import("../../node_modules/@coinbase/cdp-sdk/_types/openapi-client/index.js");

let sandbox: Sandbox;
let cdp: CdpClient;
beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, seed: "sdk-payment-sessions", validateResponses: true });
  sandbox.clock.freeze(true);
  cdp = cdpClientFor(sandbox);
});
afterAll(() => sandbox.close());

describe("@coinbase/cdp-sdk payment sessions", () => {
  it("a CDP account pays a session with its signature; the merchant captures and refunds with the generated client", async () => {
    const payer = await cdp.evm.createAccount();
    await fundUsdc(sandbox, payer.address, "20000000");
    const merchant = privateKeyToAccount(generatePrivateKey()).address;
    const session = await api.createPaymentSession({ amount: "8", asset: "usdc", target: { address: merchant, network: "base-sepolia" } });
    expect(session).toMatchObject({ status: "created", amount: "8.00" });

    const { options } = await api.getWalletAuthorizationOptions(session.paymentSessionId!, { addresses: [payer.address] });
    const [option] = options;
    const payload = option!.payloads[0]!;
    const data = payload.data as unknown as {
      domain: typeof USDC_DOMAIN;
      message: { from: `0x${string}`; to: `0x${string}`; value: string; validAfter: string; validBefore: string; nonce: Hex };
    };
    expect(data.domain).toEqual(USDC_DOMAIN);
    const typed = {
      domain: data.domain,
      types: TRANSFER_WITH_AUTHORIZATION,
      primaryType: "TransferWithAuthorization" as const,
      message: {
        ...data.message,
        value: BigInt(data.message.value),
        validAfter: BigInt(data.message.validAfter),
        validBefore: BigInt(data.message.validBefore),
      },
    };
    const signature = await payer.signTypedData(typed);
    expect(await recoverTypedDataAddress({ ...typed, signature })).toBe(payer.address);

    const authorization = await api.authorizeWalletPaymentSession(session.paymentSessionId!, {
      optionId: option!.optionId,
      signedPayloads: [{ payloadId: payload.payloadId, signature }],
    });
    expect(authorization.status).toBe("pending");
    sandbox.clock.advance(LANDS_MS);
    expect((await api.getPaymentSessionAuthorization(session.paymentSessionId!, authorization.authorizationId!)).status).toBe("succeeded");

    const capture = await api.capturePaymentSession(session.paymentSessionId!, {
      amount: "5",
      finalCapture: true,
      externalReferenceId: "capture-1",
      customerDisplay: { referenceCode: "PART-1" },
    });
    expect(capture).toMatchObject({ status: "pending", externalReferenceId: "capture-1", customerDisplay: { referenceCode: "PART-1" } });
    sandbox.clock.advance(LANDS_MS);
    expect((await api.getPaymentSessionCapture(session.paymentSessionId!, capture.captureId!)).status).toBe("succeeded");

    const accountId = await openAccount(sandbox);
    await fundAccount(sandbox, accountId, "usdc", "10");
    const refund = await api.refundPaymentSession(session.paymentSessionId!, { source: { accountId, asset: "usdc" }, amount: "1" });
    sandbox.clock.advance(LANDS_MS);
    expect((await api.listPaymentSessionRefunds(session.paymentSessionId!)).refunds.map((r) => [r.refundId, r.status])).toEqual([
      [refund.refundId, "succeeded"],
    ]);
    expect((await api.getPaymentSession(session.paymentSessionId!)).balances).toEqual({
      capturable: "0",
      captured: "5.00",
      refundable: "4.00",
      refunded: "1.00",
    });

    // What the payer holds after: 20 − 8 held + 3 released by the final capture + 1 refunded.
    const { balances } = await cdp.evm.listTokenBalances({ address: payer.address, network: "base-sepolia" });
    expect(balances.find((b) => b.token.symbol === "USDC")?.amount.amount).toBe(16_000_000n);
  });

  it("reports a refused capture as an APIError with the platform's errorType", async () => {
    const session = await api.createPaymentSession({
      amount: "1",
      asset: "usdc",
      target: { address: privateKeyToAccount(generatePrivateKey()).address, network: "base-sepolia" },
    });
    await expect(api.capturePaymentSession(session.paymentSessionId!, { finalCapture: true })).rejects.toMatchObject({
      statusCode: 400,
      errorType: "no_capturable_balance",
    });
    await api.cancelPaymentSession(session.paymentSessionId!, { cancellationReason: "test" });
    expect((await api.getPaymentSession(session.paymentSessionId!)).status).toBe("canceled");
  });

  it("has the Coinbase-account calls, which carry the merchant's API key and are refused as the platform refuses it", async () => {
    // The generated functions take no Authorization or cb-authz-id of their own: a configured client signs them with
    // its API key, which these payer operations refuse (a payer's app sends the payer's Coinbase OAuth token instead).
    await expect(api.listCoinbaseAccountBalances()).rejects.toMatchObject({ statusCode: 403, errorType: "forbidden" });
    const session = await api.createPaymentSession({
      amount: "1",
      asset: "usdc",
      target: { address: privateKeyToAccount(generatePrivateKey()).address, network: "base-sepolia" },
    });
    await expect(api.authorizeCoinbasePaymentSession(session.paymentSessionId!, {})).rejects.toMatchObject({ statusCode: 400, errorType: "invalid_request" });
    expect((await api.getPaymentSession(session.paymentSessionId!)).status).toBe("created");
  });

  it("pays a disbursement and lists it by its source account", async () => {
    const accountId = await openAccount(sandbox);
    await fundAccount(sandbox, accountId, "usdc", "3");
    const created = await api.createDisbursement({ source: { accountId, asset: "usdc" }, target: { coinbaseUserId: "cb-user" }, amount: "3", asset: "usdc" });
    expect(created.status).toBe("pending");
    sandbox.clock.advance(10 * 60 * 1000);
    expect((await api.getDisbursement(created.disbursementId!)).status).toBe("succeeded");
    expect((await api.listDisbursements({ sourceAccountId: accountId })).disbursements.map((d) => d.disbursementId)).toEqual([created.disbursementId]);
  });
});
