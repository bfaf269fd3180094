/**
 * The upto scheme on Solana devnet: @x402/svm's own upto client opens a
 * payment channel for the maximum (reading the blockhash and slot from the
 * sandbox's node), the facilitator checks the open, deposits it (signing as
 * fee payer) and claims the charge with a voucher — its own, or one the
 * resource server's authorizer signed with @x402/svm's server scheme.
 */
import { UptoSvmScheme } from "@x402/svm/upto/client";
import { UptoSvmScheme as UptoSvmServerScheme } from "@x402/svm/upto/server";
import { ed25519 } from "@noble/curves/ed25519.js";
import { createKeyPairSignerFromPrivateKeyBytes, getBase58Encoder, getTransactionDecoder, type KeyPairSigner } from "@solana/kit";
import { randomBytes } from "node:crypto";
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "cdp-sandbox";
import { call, fund, hostOf, withSandbox } from "#test/helpers/sandbox.js";
import { mintBearer } from "#test/helpers/tokens.js";
import { USDC_SOLANA_DEVNET, uptoSvmRequirements, v2Body } from "#test/helpers/x402.js";

let sandbox: Sandbox;
let nodeUrl: string;
let feePayer: string;
let receiverAuthorizer: string;
const DEVNET = "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1";

beforeAll(async () => {
  sandbox = await withSandbox({ seed: "x402-upto-svm" });
  const path = "/apikeys/v1/tokens/active";
  const token = await mintBearer(sandbox.credentials.apiKeyId, sandbox.credentials.apiKeySecret, { method: "GET", host: `http://${hostOf(sandbox)}`, path });
  nodeUrl = `${sandbox.url}/rpc/v1/solana-devnet/${(await request(sandbox.url).get(path).set("Authorization", `Bearer ${token}`)).body.id}`;
  const kinds = (await call(sandbox, "GET", "/platform/v2/x402/supported")).body.kinds as Array<{
    scheme: string;
    network: string;
    extra: Record<string, string>;
  }>;
  ({ feePayer, receiverAuthorizer } = kinds.find((k) => k.scheme === "upto" && k.network === DEVNET)!.extra as {
    feePayer: string;
    receiverAuthorizer: string;
  });
});
afterAll(() => sandbox.close());

const verify = (body: unknown) => call(sandbox, "POST", "/platform/v2/x402/verify", { body });
const settle = (body: unknown) => call(sandbox, "POST", "/platform/v2/x402/settle", { body });
const keypair = () => createKeyPairSignerFromPrivateKeyBytes(randomBytes(32));

async function usdcOf(owner: string): Promise<bigint> {
  const res = await call(sandbox, "GET", `/platform/v2/solana/token-balances/solana-devnet/${owner}`);
  const balances = res.body.balances as Array<{ token: { mintAddress: string }; amount: { amount: string } }>;
  return BigInt(balances.find((b) => b.token.mintAddress === USDC_SOLANA_DEVNET)?.amount.amount ?? "0");
}

/** A funded payer's channel open for the maximum, made by the protocol's own upto client. */
async function payment(o: { max?: string; authorizer?: string; payer?: KeyPairSigner; maxTimeoutSeconds?: number } = {}) {
  const payer = o.payer ?? (await keypair());
  if (!o.payer) await fund(sandbox, { network: "solana-devnet", address: payer.address, token: "USDC", amount: "1000000" });
  const payTo = (await keypair()).address;
  const requirements = uptoSvmRequirements(
    payTo,
    o.max ?? "100000",
    { feePayer, receiverAuthorizer: o.authorizer ?? receiverAuthorizer },
    { maxTimeoutSeconds: o.maxTimeoutSeconds ?? 300 },
  );
  const { payload } = await new UptoSvmScheme(payer, { rpcUrl: nodeUrl }).createPaymentPayload(2, requirements as never);
  const body = v2Body(requirements, payload);
  /** The settle the resource server sends: the payload stamped with the step, the requirements with the amount. */
  const step = (type: "deposit" | "claim", amount = requirements.amount, more: Record<string, unknown> = {}) => ({
    ...body,
    paymentPayload: { ...body.paymentPayload, payload: { ...(body.paymentPayload.payload as Record<string, unknown>), type, ...more } },
    paymentRequirements: { ...requirements, amount },
  });
  return { payer, payTo, requirements, payload: payload as Record<string, unknown>, body, step };
}

describe("upto on Solana devnet", () => {
  it("verifies the open, deposits the maximum, claims a smaller charge and refunds the rest", async () => {
    const { payer, payTo, payload, body, step } = await payment();
    expect((await verify(body)).body).toEqual({ isValid: true, payer: payer.address });
    // The payer signed the open; the fee payer's slot is still empty.
    const open = getTransactionDecoder().decode(Buffer.from(String(payload.openTransaction), "base64"));
    expect(Object.keys(open.signatures)).toEqual([feePayer, payer.address]);

    const deposit = await settle(step("deposit"));
    expect(deposit.status).toBe(200);
    expect(deposit.body).toMatchObject({ success: true, payer: payer.address, network: DEVNET, amount: "100000" });
    // The deposit's id is the fee payer's signature over the payer's open message.
    expect(
      ed25519.verify(
        getBase58Encoder().encode(deposit.body.transaction) as Uint8Array,
        new Uint8Array(open.messageBytes),
        getBase58Encoder().encode(feePayer) as Uint8Array,
      ),
    ).toBe(true);
    expect(await usdcOf(payer.address)).toBe(900_000n);
    expect(await usdcOf(String(payload.channelId))).toBe(100_000n);

    const claim = await settle(step("claim", "35000"));
    expect(claim.status).toBe(200);
    expect(claim.body).toMatchObject({ success: true, payer: payer.address, network: DEVNET, amount: "35000" });
    expect(claim.body.transaction).not.toBe(deposit.body.transaction);
    expect(await usdcOf(payer.address)).toBe(965_000n);
    expect(await usdcOf(payTo)).toBe(35_000n);
    expect(await usdcOf(String(payload.channelId))).toBe(0n);
    const statuses = await request(nodeUrl)
      .post("")
      .send({ jsonrpc: "2.0", id: 1, method: "getSignatureStatuses", params: [[deposit.body.transaction, claim.body.transaction]] });
    expect(statuses.body.result.value.map((s: { err: unknown } | null) => s?.err)).toEqual([null, null]);
  });

  it("refuses a replayed deposit and a replayed claim", async () => {
    const { step, body } = await payment();
    expect((await settle(step("deposit"))).status).toBe(200);
    expect((await settle(step("deposit"))).body).toMatchObject({ success: false, errorReason: "invalid_upto_svm_channel_already_open" });
    expect((await verify(body)).body.invalidReason).toBe("invalid_upto_svm_channel_already_open");
    expect((await settle(step("claim", "1000"))).status).toBe(200);
    expect((await settle(step("claim", "1000"))).body).toMatchObject({ success: false, errorReason: "invalid_upto_svm_channel_state" });
  });

  it("refuses to charge above the maximum, and nothing moves", async () => {
    const { payer, payload, step } = await payment();
    expect((await settle(step("deposit"))).status).toBe(200);
    const over = await settle(step("claim", "100001"));
    expect(over.status).toBe(400);
    expect(over.body).toMatchObject({ success: false, errorReason: "invalid_upto_svm_payload_settlement_exceeds_amount", payer: payer.address });
    expect(await usdcOf(String(payload.channelId))).toBe(100_000n);
    expect((await settle(step("claim", "100000"))).body).toMatchObject({ success: true, amount: "100000" });
  });

  it("refuses an expired authorization and a claim after the channel expired", async () => {
    const { body, step, payer } = await payment();
    expect((await settle(step("deposit"))).status).toBe(200);
    sandbox.clock.advance(301_000);
    try {
      expect((await verify(body)).body.invalidReason).toBe("invalid_upto_svm_payload_expired");
      expect((await settle(step("claim", "5000"))).body.errorReason).toBe("invalid_upto_svm_payload_expired");
    } finally {
      sandbox.clock.advance(-301_000);
    }
    expect(await usdcOf(payer.address)).toBe(900_000n);
  });

  it("claims with a voucher the resource server's own authorizer signed, and refuses a forged one", async () => {
    const authorizer = await keypair();
    const { payer, payTo, requirements, body, step } = await payment({ authorizer: authorizer.address });
    expect((await settle(step("deposit"))).status).toBe(200);
    const server = new UptoSvmServerScheme({ receiverAuthorizerSigner: authorizer });
    const claim = (await server.enrichSettlementPayload({
      phase: "after-handler",
      paymentPayload: body.paymentPayload,
      requirements: { ...requirements, amount: "20000" },
    } as never)) as { type: "claim"; voucherSignature: string };
    expect(claim.voucherSignature).toEqual(expect.any(String));
    const forged = await settle(step("claim", "25000", { voucherSignature: claim.voucherSignature }));
    expect(forged.body.errorReason).toBe("invalid_upto_svm_payload_voucher_signature");
    const settled = await settle(step("claim", "20000", { voucherSignature: claim.voucherSignature }));
    expect(settled.body).toMatchObject({ success: true, amount: "20000" });
    expect(await usdcOf(payTo)).toBe(20_000n);
    expect(await usdcOf(payer.address)).toBe(980_000n);
    // Without a voucher the facilitator signs only for channels that name it as authorizer.
    const other = await payment({ authorizer: authorizer.address });
    expect((await settle(other.step("deposit"))).status).toBe(200);
    expect((await settle(other.step("claim", "1000"))).body.errorReason).toBe("invalid_upto_svm_authorizer_address_mismatch");
  });

  it("checks the open authorization against the requirements with the protocol's reasons", async () => {
    const { body, step, requirements } = await payment();
    const reason = async (b: unknown) => (await verify(b)).body.invalidReason;
    expect(await reason(step("deposit"))).toBe("invalid_upto_svm_payload_type");
    expect(await reason({ ...body, paymentRequirements: { ...requirements, payTo: (await keypair()).address } })).toBe("invalid_payment_requirements");
    const otherPayTo = { ...requirements, payTo: (await keypair()).address };
    expect(await reason({ ...body, paymentPayload: { ...body.paymentPayload, accepted: otherPayTo }, paymentRequirements: otherPayTo })).toBe(
      "invalid_upto_svm_payload_open_transaction",
    );
    const wider = { ...requirements, extra: { ...requirements.extra, withdrawDelay: 1800 } };
    expect(await reason({ ...body, paymentPayload: { ...body.paymentPayload, accepted: wider }, paymentRequirements: wider })).toBe(
      "invalid_upto_svm_payload_open_transaction",
    );
    const stranger = { ...requirements, extra: { ...requirements.extra, feePayer: (await keypair()).address } };
    expect(await reason({ ...body, paymentPayload: { ...body.paymentPayload, accepted: stranger }, paymentRequirements: stranger })).toBe(
      "facilitator_mismatch",
    );
    const tampered = {
      ...body,
      paymentPayload: { ...body.paymentPayload, payload: { ...(body.paymentPayload.payload as Record<string, unknown>), maxAmount: "90000" } },
    };
    expect(await reason(tampered)).toBe("invalid_upto_svm_payload_amount_mismatch");
    const poor = await payment({ payer: await keypair() });
    expect(await reason(poor.body)).toBe("insufficient_funds");
    expect((await settle(poor.step("deposit"))).body.errorReason).toBe("invalid_upto_svm_settlement_simulation");
  });

  it("refuses a channel meant to stay claimable for more than an hour", async () => {
    const { body } = await payment({ maxTimeoutSeconds: 3601 });
    expect((await verify(body)).body.invalidReason).toBe("invalid_upto_svm_payload_channel_lifetime_exceeded");
  });
});
