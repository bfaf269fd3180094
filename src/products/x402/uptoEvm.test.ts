/**
 * The upto scheme on EVM: the payer signs a Permit2 PermitWitnessTransferFrom
 * for the maximum (with @x402/evm's own upto client, or with viem alone to
 * break one field), approves Permit2 on the token with a transaction through
 * the sandbox's node, and the facilitator settles the charge through the upto
 * proxy. The settlement's calldata is read back from the node with viem.
 */
import request from "supertest";
import { UptoEvmScheme } from "@x402/evm/upto/client";
import { declareEip2612GasSponsoringExtension } from "@x402/extensions";
import { createPublicClient, createWalletClient, decodeFunctionData, erc20Abi, http, parseAbi, type PublicClient } from "viem";
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import { baseSepolia } from "viem/chains";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "cdp-sandbox";
import { call, fund, hostOf, withSandbox } from "#test/helpers/sandbox.js";
import { mintBearer } from "#test/helpers/tokens.js";
import { eip2612Extension, PERMIT2, signUptoPermit, UPTO_PERMIT2_PROXY, USDC_BASE_SEPOLIA, uptoEvmRequirements, v2Body } from "#test/helpers/x402.js";

let sandbox: Sandbox;
let nodeUrl: string;
let node: PublicClient;
let facilitator: `0x${string}`;
const MERCHANT = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed";

beforeAll(async () => {
  sandbox = await withSandbox({ seed: "x402-upto-evm" });
  const path = "/apikeys/v1/tokens/active";
  const token = await mintBearer(sandbox.credentials.apiKeyId, sandbox.credentials.apiKeySecret, { method: "GET", host: `http://${hostOf(sandbox)}`, path });
  nodeUrl = `${sandbox.url}/rpc/v1/base-sepolia/${(await request(sandbox.url).get(path).set("Authorization", `Bearer ${token}`)).body.id}`;
  node = createPublicClient({ chain: baseSepolia, transport: http(nodeUrl) }) as PublicClient;
  facilitator = (await call(sandbox, "GET", "/platform/v2/x402/supported")).body.signers["eip155:*"][0];
});
afterAll(() => sandbox.close());

const NONCES_ABI = parseAbi(["function nonces(address owner) view returns (uint256)"]);
const now = () => Math.floor(sandbox.clock.now() / 1000);
const verify = (body: unknown) => call(sandbox, "POST", "/platform/v2/x402/verify", { body });
const settle = (body: unknown) => call(sandbox, "POST", "/platform/v2/x402/settle", { body });
const requirements = (amount = "100000", over: Record<string, unknown> = {}) => uptoEvmRequirements(MERCHANT, amount, facilitator, over);
/** What the resource server sends to settle: the requirements it accepted, with the amount it charges. */
const charging = (body: ReturnType<typeof v2Body>, charge: string) => ({ ...body, paymentRequirements: { ...body.paymentRequirements, amount: charge } });

const PROXY_ABI = parseAbi([
  "struct TokenPermissions { address token; uint256 amount; }",
  "struct PermitTransferFrom { TokenPermissions permitted; uint256 nonce; uint256 deadline; }",
  "struct Witness { address to; address facilitator; uint256 validAfter; }",
  "struct Permit2612 { uint256 value; uint256 deadline; bytes32 r; bytes32 s; uint8 v; }",
  "function settle(PermitTransferFrom permit, uint256 amount, address owner, Witness witness, bytes signature)",
  "function settleWithPermit(Permit2612 permit2612, PermitTransferFrom permit, uint256 amount, address owner, Witness witness, bytes signature)",
]);

/** A payer with gas and USDC that has approved Permit2 for `approved` USDC through the node. */
async function payer(approved = 1_000_000n): Promise<PrivateKeyAccount> {
  const account = privateKeyToAccount(generatePrivateKey());
  await fund(sandbox, { network: "base-sepolia", address: account.address, amount: "1000000000000000" });
  await fund(sandbox, { network: "base-sepolia", address: account.address, token: "USDC", amount: "1000000" });
  if (approved > 0n) {
    const wallet = createWalletClient({ account, chain: baseSepolia, transport: http(nodeUrl) });
    const hash = await wallet.writeContract({ address: USDC_BASE_SEPOLIA, abi: erc20Abi, functionName: "approve", args: [PERMIT2, approved] });
    expect((await node.getTransactionReceipt({ hash })).status).toBe("success");
  }
  return account;
}

const usdcOf = (address: `0x${string}`) => node.readContract({ address: USDC_BASE_SEPOLIA, abi: erc20Abi, functionName: "balanceOf", args: [address] });
const allowanceOf = (address: `0x${string}`) =>
  node.readContract({ address: USDC_BASE_SEPOLIA, abi: erc20Abi, functionName: "allowance", args: [address, PERMIT2] });

/** A payment made by @x402/evm's upto client for the requirements' maximum. */
async function clientPayment(account: PrivateKeyAccount, r = requirements()) {
  const { payload } = await new UptoEvmScheme(account).createPaymentPayload(2, r as never);
  return v2Body(r, payload);
}

describe("upto on Base Sepolia", () => {
  it("verifies the maximum, settles a smaller charge through the upto proxy, and moves only the charge", async () => {
    const account = await payer();
    const body = await clientPayment(account);
    expect(body.paymentPayload.payload).toMatchObject({ permit2Authorization: { spender: UPTO_PERMIT2_PROXY, witness: { facilitator } } });
    expect((await verify(body)).body).toEqual({ isValid: true, payer: account.address });
    const merchantBefore = await usdcOf(MERCHANT);

    const settled = await settle(charging(body, "40000"));
    expect(settled.status).toBe(200);
    expect(settled.body).toMatchObject({ success: true, payer: account.address, network: "eip155:84532", amount: "40000" });
    expect(await usdcOf(account.address)).toBe(960_000n);
    expect((await usdcOf(MERCHANT)) - merchantBefore).toBe(40_000n);
    expect(await allowanceOf(account.address)).toBe(960_000n);

    const tx = await node.getTransaction({ hash: settled.body.transaction });
    expect(tx.from.toLowerCase()).toBe(facilitator.toLowerCase());
    expect(tx.to?.toLowerCase()).toBe(UPTO_PERMIT2_PROXY.toLowerCase());
    const call = decodeFunctionData({ abi: PROXY_ABI, data: tx.input });
    if (call.functionName !== "settle") throw new Error(`the facilitator called ${call.functionName}`);
    const [permit, amount, owner] = call.args;
    expect(permit.permitted.amount).toBe(100_000n);
    expect(amount).toBe(40_000n);
    expect(owner).toBe(account.address);
  });

  it("refuses a replayed authorization: Permit2's nonce is used once", async () => {
    const body = await clientPayment(await payer());
    expect((await settle(charging(body, "10000"))).status).toBe(200);
    const again = await settle(charging(body, "10000"));
    expect(again.status).toBe(400);
    expect(again.body).toMatchObject({ success: false, errorReason: "permit2_invalid_nonce", network: "eip155:84532" });
    expect((await verify(body)).body.invalidReason).toBe("permit2_invalid_nonce");
  });

  it("refuses to charge above the signed maximum, and nothing moves", async () => {
    const account = await payer();
    const body = await clientPayment(account);
    const over = await settle(charging(body, "100001"));
    expect(over.status).toBe(400);
    expect(over.body).toMatchObject({ success: false, errorReason: "invalid_upto_evm_payload_settlement_exceeds_amount", payer: account.address });
    expect(await usdcOf(account.address)).toBe(1_000_000n);
    expect((await settle(charging(body, "100000"))).body).toMatchObject({ success: true, amount: "100000" });
  });

  it("refuses an expired authorization on the sandbox clock", async () => {
    const body = await clientPayment(await payer());
    sandbox.clock.advance(301_000);
    try {
      expect((await verify(body)).body.invalidReason).toBe("permit2_deadline_expired");
      expect((await settle(charging(body, "1000"))).body.errorReason).toBe("permit2_deadline_expired");
    } finally {
      sandbox.clock.advance(-301_000);
    }
  });

  it("settles a zero charge without a transaction", async () => {
    const account = await payer();
    const settled = await settle(charging(await clientPayment(account), "0"));
    expect(settled.body).toEqual({ success: true, payer: account.address, transaction: "", network: "eip155:84532", amount: "0" });
    expect(await usdcOf(account.address)).toBe(1_000_000n);
  });

  it("needs the payer's Permit2 allowance and balance", async () => {
    expect((await verify(await clientPayment(await payer(0n)))).body.invalidReason).toBe("permit2_allowance_required");
    const poor = await payer();
    const body = await clientPayment(poor, requirements("2000000"));
    expect((await verify(body)).body.invalidReason).toBe("permit2_insufficient_balance");
  });

  it("checks the permit against the requirements with the protocol's reasons", async () => {
    const account = await payer();
    const sign = (o: Partial<Parameters<typeof signUptoPermit>[1]>) =>
      signUptoPermit(account, { to: MERCHANT, facilitator, amount: "100000", nowSeconds: now(), ...o }).then((p) => v2Body(requirements(), p));
    const reason = async (body: unknown) => (await verify(body)).body.invalidReason;
    expect(await reason(await sign({}))).toBeUndefined();
    expect(await reason(await sign({ facilitator: "0x1f9840a85d5aF5bf1D1762F925BDADdC4201F984" }))).toBe("upto_facilitator_mismatch");
    expect(await reason(await sign({ spender: "0x402085c248EeA27D92E8b30b2C58ed07f9E20001" }))).toBe("invalid_permit2_spender");
    expect(await reason(await sign({ to: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8" }))).toBe("invalid_permit2_recipient_mismatch");
    expect(await reason(await sign({ amount: "90000" }))).toBe("permit2_amount_mismatch");
    expect(await reason(await sign({ validAfter: now() + 600 }))).toBe("permit2_not_yet_valid");
    expect(await reason(await sign({ chainId: 8453 }))).toBe("invalid_permit2_signature");
    expect(await reason(await sign({ token: "0x808456652fdb597867f38412077A9182bf77359F" }))).toBe("permit2_token_mismatch");
    // An EIP-3009 authorization is the exact scheme's payload, not upto's.
    const eip3009 = {
      signature: `0x${"11".repeat(65)}`,
      authorization: { from: account.address, to: MERCHANT, value: "1", validAfter: "0", validBefore: "9", nonce: `0x${"22".repeat(32)}` },
    };
    expect(await reason(v2Body(requirements(), eip3009))).toBe("unsupported_payload_type");
  });

  it("submits the payer's EIP-2612 permit for Permit2 with the settlement (gas sponsoring), once per permit nonce", async () => {
    const account = await payer(0n);
    const sign = () => signUptoPermit(account, { to: MERCHANT, facilitator, amount: "100000", nowSeconds: now() });
    const sponsored = async (nonce: bigint, more: Partial<Parameters<typeof eip2612Extension>[1]> = {}) =>
      v2Body(requirements(), await sign(), { extensions: await eip2612Extension(account, { value: "100000", nonce, deadline: now() + 300, ...more }) });
    // The token's nonces(owner) on the node, which a buyer reads before signing the permit.
    const permitNonce = () => node.readContract({ address: USDC_BASE_SEPOLIA, abi: NONCES_ABI, functionName: "nonces", args: [account.address] });
    expect(await permitNonce()).toBe(0n);
    const first = await sponsored(0n);
    expect((await verify(first)).body).toEqual({ isValid: true, payer: account.address });
    const settled = await settle(charging(first, "30000"));
    expect(settled.body).toMatchObject({ success: true, amount: "30000" });
    expect(await allowanceOf(account.address)).toBe(70_000n);
    const tx = await node.getTransaction({ hash: settled.body.transaction });
    expect(decodeFunctionData({ abi: PROXY_ABI, data: tx.input }).functionName).toBe("settleWithPermit");

    // The token's nonce moved on: the node says so, and a permit signed with nonce 0 again does not go through.
    expect(await permitNonce()).toBe(1n);
    const stale = await verify(await sponsored(0n));
    expect(stale.body).toMatchObject({ invalidReason: "permit2_allowance_required" });
    expect(stale.body.invalidMessage).toContain("nonce");
    expect((await verify(await sponsored(1n))).body.isValid).toBe(true);
    expect((await verify(await sponsored(1n, { owner: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8" }))).body.invalidReason).toBe("eip2612_from_mismatch");
    expect((await verify(await sponsored(1n, { spender: UPTO_PERMIT2_PROXY }))).body.invalidReason).toBe("eip2612_spender_not_permit2");
    expect((await verify(await sponsored(1n, { value: "90000" }))).body.invalidReason).toBe("permit2_2612_amount_mismatch");
  });

  it("reads the resource server's declaration of the extension, echoed by the client, as no permit", async () => {
    const account = await payer();
    const body = await clientPayment(account);
    const echoed = { ...body, paymentPayload: { ...body.paymentPayload, extensions: declareEip2612GasSponsoringExtension() } };
    expect((await verify(echoed)).body).toEqual({ isValid: true, payer: account.address });
    expect((await settle(charging(echoed, "5000"))).body).toMatchObject({ success: true, amount: "5000" });
  });

  it("accepts the permit2 authorization flow only", async () => {
    const body = await clientPayment(await payer(), requirements("100000", { extra: { ...requirements().extra, paymentFlow: "upfront" } }));
    const refused = await verify(body);
    expect(refused.body).toMatchObject({ isValid: false, invalidReason: "invalid_payment_requirements" });
    expect(refused.body.invalidMessage).toContain("authorization");
  });
});
