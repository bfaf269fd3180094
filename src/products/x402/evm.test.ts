/**
 * The facilitator on EVM: supported kinds, verify with every reason a
 * documented input triggers, settle on the ledger (the token moves, the
 * facilitator's transaction carries the Transfer log, the nonce is used).
 * Authorizations are signed with viem alone.
 */
import request from "supertest";
import { createPublicClient, http, parseEventLogs, parseAbi, type PublicClient } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { baseSepolia } from "viem/chains";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "cdp-sandbox";
import { call, fund, hostOf, withSandbox } from "#test/helpers/sandbox.js";
import { mintBearer } from "#test/helpers/tokens.js";
import { signAuthorization, USDC_BASE_SEPOLIA, v1Body, v1Requirements, v2Body, v2Requirements } from "#test/helpers/x402.js";

let sandbox: Sandbox;
let node: PublicClient;
const MERCHANT = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed";

beforeAll(async () => {
  sandbox = await withSandbox({ seed: "x402-evm", validateResponses: true });
  const path = "/apikeys/v1/tokens/active";
  const token = await mintBearer(sandbox.credentials.apiKeyId, sandbox.credentials.apiKeySecret, { method: "GET", host: `http://${hostOf(sandbox)}`, path });
  const active = await request(sandbox.url).get(path).set("Authorization", `Bearer ${token}`);
  node = createPublicClient({ chain: baseSepolia, transport: http(`${sandbox.url}/rpc/v1/base-sepolia/${active.body.id}`) }) as PublicClient;
});
afterAll(() => sandbox.close());

const now = () => Math.floor(sandbox.clock.now() / 1000);
const verify = (body: unknown) => call(sandbox, "POST", "/platform/v2/x402/verify", { body });
const settle = (body: unknown) => call(sandbox, "POST", "/platform/v2/x402/settle", { body });

async function fundedPayer(amount = "1000000") {
  const account = privateKeyToAccount(generatePrivateKey());
  await fund(sandbox, { network: "base-sepolia", address: account.address, token: "USDC", amount });
  return account;
}

async function usdcOf(address: string): Promise<string> {
  const res = await call(sandbox, "GET", `/platform/v2/evm/token-balances/base-sepolia/${address}`);
  const usdc = (res.body.balances as Array<{ token: { contractAddress: string }; amount: { amount: string } }>).find(
    (b) => b.token.contractAddress.toLowerCase() === USDC_BASE_SEPOLIA.toLowerCase(),
  );
  return usdc?.amount.amount ?? "0";
}

/** A valid v2 payment of `value` to MERCHANT, with the pieces to break. */
async function payment(value = "25000", sign: Partial<Parameters<typeof signAuthorization>[1]> = {}, requirements = v2Requirements(MERCHANT, value)) {
  const payer = await fundedPayer();
  const payload = await signAuthorization(payer, { to: MERCHANT, value, nowSeconds: now(), ...sign });
  return { payer, payload, requirements, body: v2Body(requirements, payload) };
}

describe("supportedX402PaymentKinds", () => {
  it("lists exact on Base, Base Sepolia and Solana in both versions and upto in version 2, with what their requirements carry", async () => {
    const res = await call(sandbox, "GET", "/platform/v2/x402/supported");
    expect(res.status).toBe(200);
    const kinds = res.body.kinds as Array<{ x402Version: number; scheme: string; network: string; extra?: Record<string, string> }>;
    const v2 = ["eip155:8453", "eip155:84532", "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp", "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1"];
    expect(kinds.map((k) => `${k.scheme}:${k.x402Version}:${k.network}`).sort()).toEqual(
      [
        ...["base", "base-sepolia", "solana", "solana-devnet"].map((n) => `exact:1:${n}`),
        ...v2.map((n) => `exact:2:${n}`),
        ...v2.map((n) => `upto:2:${n}`),
      ].sort(),
    );
    const upto = (network: string) => kinds.find((k) => k.scheme === "upto" && k.network === network)!.extra!;
    expect(upto("eip155:84532")).toEqual({ facilitatorAddress: res.body.signers["eip155:*"][0] });
    expect(upto("solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1")).toEqual({ feePayer: res.body.signers["solana:*"][0], receiverAuthorizer: expect.any(String) });
    const feePayer = kinds.find((k) => k.network === "solana-devnet")!.extra!.feePayer!;
    expect(res.body.signers["solana:*"]).toEqual([feePayer]);
    expect(res.body.signers["eip155:*"][0]).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(res.body.extensions).toEqual(["bazaar", "eip2612GasSponsoring"]);
  });
});

describe("verify and settle an EIP-3009 payment end to end", () => {
  it("verifies, settles on the ledger with a Transfer log the node serves, moves balances, and refuses a second settle", async () => {
    const { payer, body } = await payment("250000");
    const merchantBefore = BigInt(await usdcOf(MERCHANT));
    const verified = await verify(body);
    expect(verified.status).toBe(200);
    expect(verified.body).toEqual({ isValid: true, payer: payer.address });

    const settled = await settle(body);
    expect(settled.status).toBe(200);
    expect(settled.body).toMatchObject({ success: true, payer: payer.address, network: "eip155:84532", amount: "250000" });
    expect(settled.body.transaction).toMatch(/^0x[0-9a-f]{64}$/);

    expect(await usdcOf(payer.address)).toBe("750000");
    expect(BigInt(await usdcOf(MERCHANT)) - merchantBefore).toBe(250000n);

    const receipt = await node.getTransactionReceipt({ hash: settled.body.transaction });
    expect(receipt.status).toBe("success");
    const supported = await call(sandbox, "GET", "/platform/v2/x402/supported");
    expect(receipt.from.toLowerCase()).toBe(supported.body.signers["eip155:*"][0].toLowerCase());
    const [transfer] = parseEventLogs({ abi: parseAbi(["event Transfer(address indexed from, address indexed to, uint256 value)"]), logs: receipt.logs });
    expect(transfer!.args).toEqual({ from: payer.address, to: MERCHANT, value: 250000n });
    expect(transfer!.address.toLowerCase()).toBe(USDC_BASE_SEPOLIA.toLowerCase());

    const again = await settle(body);
    expect(again.status).toBe(400);
    expect(again.body).toMatchObject({ success: false, errorReason: "invalid_exact_evm_nonce_already_used", payer: payer.address, network: "eip155:84532" });
    const reverify = await verify(body);
    expect(reverify.body.invalidReason).toBe("invalid_exact_evm_nonce_already_used");
    expect(await usdcOf(payer.address)).toBe("750000");
  });

  it("settles a version 1 payment and answers with the version 1 network name", async () => {
    const payer = await fundedPayer();
    const requirements = v1Requirements(MERCHANT, "10000");
    const body = v1Body(requirements, await signAuthorization(payer, { to: MERCHANT, value: "10000", nowSeconds: now() }));
    expect((await verify(body)).body).toEqual({ isValid: true, payer: payer.address });
    const settled = await settle(body);
    expect(settled.status).toBe(200);
    expect(settled.body).toMatchObject({ success: true, network: "base-sepolia", payer: payer.address });
  });

  it("settles on Base mainnet over USDC's own EIP-712 domain (name USD Coin)", async () => {
    const payer = privateKeyToAccount(generatePrivateKey());
    await fund(sandbox, { network: "base", address: payer.address, token: "USDC", amount: "5000" });
    const asset = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913";
    const requirements = v2Requirements(MERCHANT, "5000", { network: "eip155:8453", asset, extra: { name: "USD Coin", version: "2" } });
    const body = v2Body(
      requirements,
      await signAuthorization(payer, { to: MERCHANT, value: "5000", nowSeconds: now(), chainId: 8453, asset, name: "USD Coin" }),
    );
    const settled = await settle(body);
    expect(settled.status).toBe(200);
    expect(settled.body.network).toBe("eip155:8453");
  });
});

describe("verify refuses what the exact scheme does not allow, with the protocol's reasons", () => {
  const expectInvalid = async (body: unknown, reason: string, payer?: string) => {
    const res = await verify(body);
    expect(res.status).toBe(400);
    expect(res.body.isValid).toBe(false);
    expect(res.body.invalidReason).toBe(reason);
    expect(res.body.invalidMessage).toEqual(expect.any(String));
    if (payer) expect(res.body.payer).toBe(payer);
  };

  it("invalid_x402_version: the body and the payload disagree on the version", async () => {
    const { body } = await payment();
    await expectInvalid({ ...body, paymentPayload: { ...body.paymentPayload, x402Version: 1 } }, "invalid_x402_version");
  });

  it("invalid_scheme: the requirements ask for another scheme, or for batch-settlement", async () => {
    const { body, requirements } = await payment();
    await expectInvalid({ ...body, paymentRequirements: { ...requirements, scheme: "upto" } }, "invalid_scheme");
    const batch = { ...requirements, scheme: "batch-settlement" };
    await expectInvalid({ ...body, paymentPayload: { ...body.paymentPayload, accepted: batch }, paymentRequirements: batch }, "invalid_scheme");
  });

  it("takes the payment flows of the exact scheme: upfront settles without a verify; another flow is refused", async () => {
    const upfront = v2Requirements(MERCHANT, "25000", { extra: { name: "USDC", version: "2", paymentFlow: "upfront" } });
    const { body, payer } = await payment("25000", {}, upfront);
    expect((await settle(body)).body).toMatchObject({ success: true, payer: payer.address, amount: "25000" });
    const escrow = v2Requirements(MERCHANT, "25000", { extra: { name: "USDC", version: "2", paymentFlow: "escrow" } });
    const refused = await payment("25000", {}, escrow);
    const answer = await settle(refused.body);
    expect(answer.body).toMatchObject({ success: false, errorReason: "invalid_payment_requirements" });
    expect(answer.body.errorMessage).toContain("authorization, upfront");
    expect(await usdcOf(refused.payer.address)).toBe("1000000");
  });

  it("refuses requirements that carry both version amounts", async () => {
    const { body, requirements } = await payment();
    const both = { ...requirements, maxAmountRequired: "25000" };
    const res = await verify({ ...body, paymentPayload: { ...body.paymentPayload, accepted: both }, paymentRequirements: both });
    expect(res.body).toMatchObject({ isValid: false, invalidReason: "invalid_payment_requirements" });
    expect(res.body.invalidMessage).toContain("malformed_requirement");
  });

  it("invalid_network: a network the requirements do not name, or one the sandbox does not settle on", async () => {
    const { body, requirements } = await payment();
    await expectInvalid({ ...body, paymentRequirements: { ...requirements, network: "eip155:8453" } }, "invalid_network");
    const polygon = { ...requirements, network: "eip155:137" };
    await expectInvalid({ ...body, paymentPayload: { ...body.paymentPayload, accepted: polygon }, paymentRequirements: polygon }, "invalid_network");
  });

  it("invalid_payment_requirements: the payment accepted another amount than the requirements ask", async () => {
    const { body, requirements } = await payment();
    await expectInvalid({ ...body, paymentRequirements: { ...requirements, amount: "1" } }, "invalid_payment_requirements");
  });

  it("invalid_payload and unsupported_payload_type: a Solana payload, a Permit2 payload", async () => {
    const { body } = await payment();
    await expectInvalid({ ...body, paymentPayload: { ...body.paymentPayload, payload: { transaction: "AQAB" } } }, "invalid_payload");
    const permit2 = {
      signature: (body.paymentPayload.payload as { signature: string }).signature,
      permit2Authorization: {
        from: MERCHANT,
        permitted: { token: USDC_BASE_SEPOLIA, amount: "25000" },
        spender: MERCHANT,
        nonce: "1",
        deadline: "9999999999",
        witness: { to: MERCHANT, validAfter: "0" },
      },
    };
    await expectInvalid({ ...body, paymentPayload: { ...body.paymentPayload, payload: permit2 } }, "unsupported_payload_type");
  });

  it("invalid_exact_evm_eip3009_not_supported: an asset without transferWithAuthorization", async () => {
    const cbBTC = "0xcbB7C0000aB88B473b1f5aFd9ef808440eed33Bf";
    const requirements = v2Requirements(MERCHANT, "25000", { asset: cbBTC });
    const { body, payer } = await payment("25000", { asset: cbBTC }, requirements);
    await expectInvalid(body, "invalid_exact_evm_eip3009_not_supported", payer.address);
  });

  it("invalid_exact_evm_token_name_mismatch and _version_mismatch: extra disagrees with the token's domain", async () => {
    await expectInvalid(
      (await payment("25000", {}, v2Requirements(MERCHANT, "25000", { extra: { name: "USD Coin", version: "2" } }))).body,
      "invalid_exact_evm_token_name_mismatch",
    );
    await expectInvalid(
      (await payment("25000", {}, v2Requirements(MERCHANT, "25000", { extra: { name: "USDC", version: "1" } }))).body,
      "invalid_exact_evm_token_version_mismatch",
    );
  });

  it("invalid_exact_evm_payload_signature: signed by another key, or over another chain's domain", async () => {
    const { body, payer } = await payment();
    const stranger = privateKeyToAccount(generatePrivateKey());
    const forged = await signAuthorization(stranger, { to: MERCHANT, value: "25000", nowSeconds: now() });
    await expectInvalid(
      { ...body, paymentPayload: { ...body.paymentPayload, payload: { ...forged, authorization: { ...forged.authorization, from: payer.address } } } },
      "invalid_exact_evm_payload_signature",
      payer.address,
    );
    await expectInvalid((await payment("25000", { chainId: 8453 })).body, "invalid_exact_evm_payload_signature");
  });

  it("invalid_exact_evm_payload_recipient_mismatch: the authorization pays someone else", async () => {
    const other = privateKeyToAccount(generatePrivateKey()).address;
    await expectInvalid((await payment("25000", { to: other })).body, "invalid_exact_evm_payload_recipient_mismatch");
  });

  it("invalid_exact_evm_payload_authorization_valid_before and _valid_after, on the sandbox clock", async () => {
    const { body } = await payment("25000", { validBefore: now() + 60 });
    expect((await verify(body)).status).toBe(200);
    sandbox.clock.advance(57_000); // within 6 s of validBefore: too late to land
    await expectInvalid(body, "invalid_exact_evm_payload_authorization_valid_before");
    await expectInvalid((await payment("25000", { validAfter: now() + 300 })).body, "invalid_exact_evm_payload_authorization_valid_after");
  });

  it("invalid_exact_evm_payload_authorization_value_mismatch (v2) and _value (v1): the exact amount only", async () => {
    await expectInvalid((await payment("25000", { value: "30000" })).body, "invalid_exact_evm_payload_authorization_value_mismatch");
    const payer = await fundedPayer();
    const requirements = v1Requirements(MERCHANT, "25000");
    await expectInvalid(
      v1Body(requirements, await signAuthorization(payer, { to: MERCHANT, value: "20000", nowSeconds: now() })),
      "invalid_exact_evm_payload_authorization_value",
    );
  });

  it("insufficient_funds: the payer's USDC on the ledger does not cover the payment", async () => {
    const { body, payer } = await payment("2000000");
    await expectInvalid(body, "insufficient_funds", payer.address);
    const settled = await settle(body);
    expect(settled.status).toBe(400);
    expect(settled.body).toMatchObject({ success: false, errorReason: "insufficient_funds" });
  });

  it("answers a body that breaks the contract with the platform's invalid_request error", async () => {
    const res = await verify({ x402Version: 2, paymentPayload: { x402Version: 2 } });
    expect(res.status).toBe(400);
    expect(res.body.errorType).toBe("invalid_request");
  });
});
