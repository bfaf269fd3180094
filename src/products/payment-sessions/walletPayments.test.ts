/**
 * A session paid from a wallet, over HTTP: the payer's options, the EIP-3009
 * authorization signed with viem and checked for real, the funds held in the
 * escrow when it lands on the sandbox clock, and the merchant's captures and
 * voids moving them on the ledger the node serves.
 */
import {
  decodeFunctionData,
  encodeAbiParameters,
  encodeFunctionData,
  getAddress,
  hashTypedData,
  pad,
  parseAbi,
  parseSignature,
  serializeErc6492Signature,
  type Hex,
} from "viem";
import type { PrivateKeyAccount } from "viem/accounts";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "cdp-sandbox";
import { rpc, tokenBalance } from "#test/helpers/afterCommit.js";
import {
  createSession,
  fundUsdc,
  getSession,
  LANDS_MS,
  payFromWallet,
  PS,
  signerOf,
  signOffered,
  USDC,
  USDC_DOMAIN,
  walletOptions,
} from "#test/helpers/paymentSessions.js";
import { call, withSandbox } from "#test/helpers/sandbox.js";
import { TRANSFER_WITH_AUTHORIZATION } from "#test/helpers/x402.js";

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await withSandbox({ seed: "payment-sessions-wallet" });
  sandbox.clock.freeze(true);
});
afterAll(() => sandbox.close());

const newAccount = () => privateKeyToAccount(generatePrivateKey());
/** An address's USDC in whole units (the balance API answers the smallest unit). */
const usdc = async (address: string) => String(Number(await tokenBalance(sandbox, "evm", "base-sepolia", address, "USDC")) / 1e6);
/** A payer holding `units` of USDC (6 decimals). */
async function payerWith(units: string) {
  const payer = newAccount();
  await fundUsdc(sandbox, payer.address, units);
  return payer;
}
const land = () => sandbox.clock.advance(LANDS_MS);
const capture = (id: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  call(sandbox, "POST", `${PS}/${id}/captures`, { body, headers });

const eip3009 = parseAbi([
  "function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, uint8 v, bytes32 r, bytes32 s)",
]);
const TRANSFER_TOPIC = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef";
const eip3009Bytes = parseAbi([
  "function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, bytes signature)",
]);
/** The Coinbase Smart Wallet factory the official client names in its ERC-6492 wrappers. */
const WALLET_FACTORY = "0xBA5ED110eFDBa3D005bfC882d75358ACBbB85842";

/**
 * A smart wallet's signature of an offered payload, made with viem as the official client makes it for an
 * undeployed wallet: the owner signs the wallet's replay-safe EIP-712 hash, in a SignatureWrapper, wrapped for
 * ERC-6492 with the factory call that creates the wallet for that owner.
 */
async function signAsUndeployedWallet(owner: PrivateKeyAccount, wallet: `0x${string}`, data: { domain: typeof USDC_DOMAIN; message: Record<string, string> }) {
  const m = data.message;
  const hash = hashTypedData({
    domain: data.domain,
    types: TRANSFER_WITH_AUTHORIZATION,
    primaryType: "TransferWithAuthorization",
    message: { ...m, value: BigInt(m.value!), validAfter: BigInt(m.validAfter!), validBefore: BigInt(m.validBefore!) } as never,
  });
  const replaySafe = hashTypedData({
    domain: { name: "Coinbase Smart Wallet", version: "1", chainId: 84532, verifyingContract: wallet },
    types: { CoinbaseSmartWalletMessage: [{ name: "hash", type: "bytes32" }] },
    primaryType: "CoinbaseSmartWalletMessage",
    message: { hash },
  });
  const inner = encodeAbiParameters(
    [
      {
        type: "tuple",
        components: [
          { name: "ownerIndex", type: "uint8" },
          { name: "signatureData", type: "bytes" },
        ],
      },
    ],
    [{ ownerIndex: 0, signatureData: await owner.sign({ hash: replaySafe }) }],
  );
  const factoryData = encodeFunctionData({ abi: parseAbi(["function createAccount(bytes[] owners, uint256 nonce)"]), args: [[pad(owner.address)], 0n] });
  return { inner, signature: serializeErc6492Signature({ address: WALLET_FACTORY, data: factoryData, signature: inner }) };
}

describe("wallet authorization options", () => {
  it("offers the session's amount to the first address that holds it, and says why each other address is not offered", async () => {
    const merchant = newAccount().address;
    const session = await createSession(sandbox, merchant, "10.00");
    const poor = await payerWith("4000000");
    const rich = await payerWith("25000000");
    const alsoRich = await payerWith("25000000");

    const res = await walletOptions(sandbox, session.paymentSessionId, [poor.address, rich.address, alsoRich.address]);
    expect(res.status, res.text).toBe(200);
    expect(res.body.options).toHaveLength(1);
    const [option] = res.body.options;
    expect(option).toMatchObject({ source: { address: rich.address, network: "base-sepolia", asset: "usdc" }, amount: "10.00", network: "base-sepolia" });
    const data = option.payloads[0].data;
    expect(option.payloads[0].type).toBe("eip3009");
    expect(data.primaryType).toBe("TransferWithAuthorization");
    // The token's own EIP-712 domain: a wallet signing it signs a real USDC authorization.
    expect(data.domain).toEqual(USDC_DOMAIN);
    expect(data.message).toMatchObject({ from: rich.address, value: "10000000", validAfter: "0" });
    expect(Number(data.message.validBefore)).toBe(Math.ceil(Date.parse(session.expiries.authorizationExpiresAt) / 1000));
    expect(res.body.ineligibleAddresses).toEqual([
      {
        address: poor.address,
        code: "insufficient_funds",
        message: expect.any(String),
        fundsRequired: [{ asset: "usdc", network: "base-sepolia", currentBalance: "4.00", requiredBalance: "10.00" }],
      },
      { address: alsoRich.address, code: "superseded_by_preferred_option", message: expect.any(String) },
    ]);
    expect((await getSession(sandbox, session.paymentSessionId)).status).toBe("created");
  });

  it("refuses an empty, oversized, repeated or malformed address list with 400", async () => {
    const session = await createSession(sandbox, newAccount().address);
    const a = newAccount().address;
    for (const list of [[""], Array.from({ length: 6 }, () => newAccount().address), [a, a.toLowerCase()], ["0x1234"]]) {
      const res = await walletOptions(sandbox, session.paymentSessionId, list);
      expect(res.status, list.join(",")).toBe(400);
      expect(res.body.errorType).toBe("invalid_request");
    }
    expect((await walletOptions(sandbox, "paymentSession_00000000-0000-4000-8000-000000000000", [a])).status).toBe(404);
  });
});

describe("authorizing with the payer's signature", () => {
  it("holds the payer's funds when the signed transfer lands: the node shows the payer's own EIP-3009 signature", async () => {
    const merchant = newAccount().address;
    const payer = await payerWith("25000000");
    const session = await createSession(sandbox, merchant, "10.00");
    const { res, option, signature } = await payFromWallet(sandbox, session.paymentSessionId, payer);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ paymentSessionId: session.paymentSessionId, status: "pending", amount: "10.00", source: { address: payer.address } });
    expect(await signerOf(option.payloads[0].data.message, signature)).toBe(payer.address);

    // Pending: nothing has moved yet, and no other action may start.
    expect(await getSession(sandbox, session.paymentSessionId)).toMatchObject({ status: "authorization_pending", balances: { capturable: "0" } });
    expect(await usdc(payer.address)).toBe("25");
    const early = await capture(session.paymentSessionId, { finalCapture: true });
    expect(early.status).toBe(400);
    expect(early.body.errorType).toBe("payment_session_action_pending");

    land();
    const landed = await getSession(sandbox, session.paymentSessionId);
    expect(landed).toMatchObject({ status: "authorization_succeeded", balances: { capturable: "10.00", captured: "0", refundable: "0", refunded: "0" } });
    expect(landed.source).toEqual({ address: payer.address, network: "base-sepolia", asset: "usdc" });
    expect(await usdc(payer.address)).toBe("15");

    // The transaction on the node: USDC's transferWithAuthorization carrying the payer's signature, and its Transfer log.
    const [authorization] = landed.authorizations;
    expect(authorization.status).toBe("succeeded");
    const hash = authorization.onchainTransactions[0].transactionHash as Hex;
    sandbox.clock.advance(4000);
    const tx = (await rpc(sandbox, "base-sepolia", "eth_getTransactionByHash", [hash])) as { to: string; input: Hex };
    expect(getAddress(tx.to)).toBe(USDC);
    const call_ = decodeFunctionData({ abi: eip3009, data: tx.input });
    const [from, to, value, validAfter, validBefore, nonce, v, r, s] = call_.args;
    expect(from).toBe(payer.address);
    expect(value).toBe(10_000_000n);
    expect(parseSignature(signature)).toMatchObject({ r, s, v: BigInt(v) });
    expect(await signerOf({ from, to, value: String(value), validAfter: String(validAfter), validBefore: String(validBefore), nonce }, signature)).toBe(
      payer.address,
    );
    const receipt = (await rpc(sandbox, "base-sepolia", "eth_getTransactionReceipt", [hash])) as { status: string; logs: Array<{ topics: Hex[] }> };
    expect(receipt.status).toBe("0x1");
    expect(receipt.logs.some((l) => l.topics[0] === TRANSFER_TOPIC)).toBe(true);
  });

  it("takes a smart wallet's ERC-6492 signature before the wallet exists; the operator deploys it and the token gets the inner signature", async () => {
    const owner = newAccount();
    const created = await call(sandbox, "POST", "/platform/v2/evm/smart-accounts", { body: { owners: [owner.address] }, wallet: true });
    expect(created.status, created.text).toBe(201);
    const wallet = getAddress(created.body.address);
    await fundUsdc(sandbox, wallet, "25000000");
    const session = await createSession(sandbox, newAccount().address, "10.00");
    const options = await walletOptions(sandbox, session.paymentSessionId, [wallet]);
    const [option] = options.body.options;
    const payload = option.payloads[0];

    // Another owner's signature, wrapped the same way, is not the wallet's.
    const stranger = await signAsUndeployedWallet(newAccount(), wallet, payload.data);
    const body = (signature: Hex) => ({ optionId: option.optionId, signedPayloads: [{ payloadId: payload.payloadId, signature }] });
    const refused = await call(sandbox, "POST", `${PS}/${session.paymentSessionId}/authorizations/wallet`, { body: body(stranger.signature), anonymous: true });
    expect(refused.status).toBe(400);
    expect(refused.body.errorType).toBe("invalid_signature");

    const { inner, signature } = await signAsUndeployedWallet(owner, wallet, payload.data);
    const res = await call(sandbox, "POST", `${PS}/${session.paymentSessionId}/authorizations/wallet`, { body: body(signature), anonymous: true });
    expect(res.status, res.text).toBe(200);
    expect(await rpc(sandbox, "base-sepolia", "eth_getCode", [wallet, "latest"])).toBe("0x");
    land();
    const landed = await getSession(sandbox, session.paymentSessionId);
    expect(landed).toMatchObject({ status: "authorization_succeeded", balances: { capturable: "10.00" } });
    expect(await usdc(wallet)).toBe("15");
    expect(await rpc(sandbox, "base-sepolia", "eth_getCode", [wallet, "latest"])).not.toBe("0x");
    sandbox.clock.advance(4000);
    const hash = landed.authorizations[0].onchainTransactions[0].transactionHash as Hex;
    const tx = (await rpc(sandbox, "base-sepolia", "eth_getTransactionByHash", [hash])) as { input: Hex };
    expect(decodeFunctionData({ abi: eip3009Bytes, data: tx.input }).args[6]).toBe(inner);
  });

  it("refuses a signature by anyone but the option's payer with invalid_signature, and changes nothing", async () => {
    const payer = await payerWith("25000000");
    const session = await createSession(sandbox, newAccount().address);
    const { res } = await payFromWallet(sandbox, session.paymentSessionId, payer, { signer: newAccount() });
    expect(res.status).toBe(400);
    expect(res.body.errorType).toBe("invalid_signature");
    expect(res.body.errorMessage).toContain(payer.address);
    const after = await getSession(sandbox, session.paymentSessionId);
    expect(after.status).toBe("created");
    expect(after.authorizations).toBeUndefined();
    land();
    expect(await usdc(payer.address)).toBe("25");
  });

  it("refuses a signed option of another session, a garbled signature and a second authorization", async () => {
    const payer = await payerWith("50000000");
    const first = await createSession(sandbox, newAccount().address);
    const second = await createSession(sandbox, newAccount().address);
    const options = await walletOptions(sandbox, first.paymentSessionId, [payer.address]);
    const option = options.body.options[0];
    const signature = await signOffered(payer, option.payloads[0].data);
    const send = (sessionId: string, sig: string) =>
      call(sandbox, "POST", `${PS}/${sessionId}/authorizations/wallet`, {
        body: { optionId: option.optionId, signedPayloads: [{ payloadId: option.payloads[0].payloadId, signature: sig }] },
        anonymous: true,
      });
    expect((await send(second.paymentSessionId, signature)).body.errorType).toBe("invalid_request");
    expect((await send(first.paymentSessionId, "0x1234")).body.errorType).toBe("invalid_signature");
    expect((await send(first.paymentSessionId, signature)).status).toBe(200);
    const again = await send(first.paymentSessionId, signature);
    expect(again.status).toBe(400);
    expect(again.body.errorType).toBe("payment_session_action_pending");
    land();
    const later = await send(first.paymentSessionId, signature);
    expect(later.body.errorType).toBe("payment_session_already_authorized");
    expect((await getSession(sandbox, first.paymentSessionId)).authorizations).toHaveLength(1);
    expect(await usdc(payer.address)).toBe("40");
  });

  it("fails the authorization when it lands if the payer no longer holds the funds (both sessions signed, one paid)", async () => {
    const payer = await payerWith("10000000");
    // Authorized in the opposite order of their ids, so that only the order of submission decides which lands first.
    const [one, two] = [await createSession(sandbox, newAccount().address, "10"), await createSession(sandbox, newAccount().address, "10")].sort((a, b) =>
      b.paymentSessionId.localeCompare(a.paymentSessionId),
    );
    expect((await payFromWallet(sandbox, one.paymentSessionId, payer)).res.status).toBe(200);
    expect((await payFromWallet(sandbox, two.paymentSessionId, payer)).res.status).toBe(200);
    land();
    expect((await getSession(sandbox, one.paymentSessionId)).status).toBe("authorization_succeeded");
    const failed = await getSession(sandbox, two.paymentSessionId);
    expect(failed.status).toBe("authorization_failed");
    expect(failed.authorizations[0]).toMatchObject({ status: "failed", error: { code: "insufficient_funds" } });
    expect(failed.balances.capturable).toBe("0");
    expect(await usdc(payer.address)).toBe("0");
    // A failed session is over: it is neither authorized again nor canceled.
    const retry = await walletOptions(sandbox, two.paymentSessionId, [(await payerWith("10000000")).address]);
    expect(retry.status).toBe(400);
    expect(retry.body.errorType).toBe("invalid_request");
    expect((await call(sandbox, "POST", `${PS}/${two.paymentSessionId}/cancel`, { body: {} })).status).toBe(400);
  });

  it("refuses to authorize after authorizationExpiresAt, and fails a signed transfer that lands after it", async () => {
    const payer = await payerWith("30000000");
    const deadline = new Date(sandbox.clock.now() + 60_000).toISOString();
    const late = await createSession(sandbox, newAccount().address, "10", { expiries: { authorizationExpiresAt: deadline } });
    const options = await walletOptions(sandbox, late.paymentSessionId, [payer.address]);
    sandbox.clock.advance(61_000);
    const expired = await walletOptions(sandbox, late.paymentSessionId, [payer.address]);
    expect(expired.status).toBe(400);
    expect(expired.body.errorType).toBe("authorization_expired");
    const option = options.body.options[0];
    const res = await call(sandbox, "POST", `${PS}/${late.paymentSessionId}/authorizations/wallet`, {
      body: {
        optionId: option.optionId,
        signedPayloads: [{ payloadId: option.payloads[0].payloadId, signature: await signOffered(payer, option.payloads[0].data) }],
      },
      anonymous: true,
    });
    expect(res.body.errorType).toBe("authorization_expired");
    // The session stays as it was: a deadline refuses, it does not move the session.
    expect((await getSession(sandbox, late.paymentSessionId)).status).toBe("created");

    const edge = await createSession(sandbox, newAccount().address, "10", {
      expiries: { authorizationExpiresAt: new Date(sandbox.clock.now() + 1_000).toISOString() },
    });
    expect((await payFromWallet(sandbox, edge.paymentSessionId, payer)).res.status).toBe(200);
    land();
    const s = await getSession(sandbox, edge.paymentSessionId);
    expect(s.status).toBe("authorization_failed");
    expect(s.authorizations[0].error.code).toBe("authorization_expired");
    expect(await usdc(payer.address)).toBe("30");
  });
});

describe("captures and voids", () => {
  async function authorized(amount = "10.00", extra: Record<string, unknown> = {}) {
    const merchant = newAccount().address;
    const payer = await payerWith("100000000");
    const session = await createSession(sandbox, merchant, amount, extra);
    expect((await payFromWallet(sandbox, session.paymentSessionId, payer)).res.status).toBe(200);
    land();
    return { merchant, payer, id: session.paymentSessionId as string };
  }

  it("captures in parts: each pays the merchant when it lands; more than is capturable is refused", async () => {
    const { merchant, payer, id } = await authorized("10.00");
    const part = await capture(id, { amount: "4.25", finalCapture: false, metadata: { order: "42" } });
    expect(part.status, part.text).toBe(200);
    expect(part.body).toMatchObject({ paymentSessionId: id, status: "pending", amount: "4.25", finalCapture: false, metadata: { order: "42" } });
    expect(await usdc(merchant)).toBe("0");
    land();
    expect(await usdc(merchant)).toBe("4.25");
    expect(await getSession(sandbox, id)).toMatchObject({
      status: "capture_succeeded",
      balances: { capturable: "5.75", captured: "4.25", refundable: "4.25", refunded: "0" },
    });
    const tooMuch = await capture(id, { amount: "5.76", finalCapture: false });
    expect(tooMuch.status).toBe(400);
    expect(tooMuch.body.errorType).toBe("invalid_request");
    const rest = await capture(id, { finalCapture: false });
    expect(rest.body.amount).toBe("5.75");
    land();
    expect(await usdc(merchant)).toBe("10");
    expect(await usdc(payer.address)).toBe("90");
    const none = await capture(id, { finalCapture: false });
    expect(none.body.errorType).toBe("no_capturable_balance");
    const listed = await call(sandbox, "GET", `${PS}/${id}/captures?pageSize=1`);
    expect(listed.body.captures).toHaveLength(1);
    const page2 = await call(sandbox, "GET", `${PS}/${id}/captures?pageSize=1&pageToken=${listed.body.nextPageToken}`);
    expect(page2.body.captures[0].captureId).toBe(rest.body.captureId);
    expect((await call(sandbox, "GET", `${PS}/${id}/captures/${part.body.captureId}`)).body).toMatchObject({ status: "succeeded", amount: "4.25" });
    expect((await call(sandbox, "GET", `${PS}/${id}/captures/capture_00000000-0000-4000-8000-000000000000`)).status).toBe(404);
  });

  it("labels each action with the merchant's reference and the code the payer sees, else the session's order code", async () => {
    const { id } = await authorized("10.00", { customerDisplay: { orderCode: "ORDER-77" } });
    const labelled = await capture(id, { amount: "1", finalCapture: false, externalReferenceId: "cap-1", customerDisplay: { referenceCode: "PART-1" } });
    expect(labelled.body).toMatchObject({ externalReferenceId: "cap-1", customerDisplay: { referenceCode: "PART-1" } });
    land();
    const plain = await capture(id, { amount: "1", finalCapture: false });
    expect(plain.body.customerDisplay).toEqual({ referenceCode: "ORDER-77" });
    expect(plain.body.externalReferenceId).toBeUndefined();
    land();
    const s = await getSession(sandbox, id);
    expect(s.authorizations[0].customerDisplay).toEqual({ referenceCode: "ORDER-77" });
    expect(s.captures.map((c: { customerDisplay: unknown }) => c.customerDisplay)).toEqual([{ referenceCode: "PART-1" }, { referenceCode: "ORDER-77" }]);
  });

  it("a final capture returns what it leaves to the payer", async () => {
    const { merchant, payer, id } = await authorized("10.00");
    const res = await capture(id, { amount: "3", finalCapture: true });
    land();
    const done = await call(sandbox, "GET", `${PS}/${id}/captures/${res.body.captureId}`);
    expect(done.body.onchainTransactions).toHaveLength(2);
    expect(await usdc(merchant)).toBe("3");
    expect(await usdc(payer.address)).toBe("97");
    expect((await getSession(sandbox, id)).balances).toEqual({ capturable: "0", captured: "3.00", refundable: "3.00", refunded: "0" });
  });

  it("fails a capture made before captureExpiresAt that lands after it: nothing moves, and a void still releases the funds", async () => {
    const deadline = sandbox.clock.now() + 60_000;
    const iso = new Date(deadline).toISOString();
    const { merchant, payer, id } = await authorized("10.00", { expiries: { authorizationExpiresAt: iso, captureExpiresAt: iso } });
    sandbox.clock.advance(deadline - sandbox.clock.now() - 1_000);
    const late = await capture(id, { finalCapture: true });
    expect(late.status, late.text).toBe(200);
    land();
    const s = await getSession(sandbox, id);
    expect(s).toMatchObject({ status: "capture_failed", balances: { capturable: "10.00", captured: "0", refunded: "0" } });
    expect(s.captures[0]).toMatchObject({ status: "failed", error: { code: "capture_expired" } });
    expect(s.captures[0].onchainTransactions).toBeUndefined();
    expect(await usdc(merchant)).toBe("0");
    expect((await capture(id, { finalCapture: true })).body.errorType).toBe("capture_expired");
    expect((await call(sandbox, "POST", `${PS}/${id}/voids`, { body: {} })).status).toBe(200);
    land();
    expect(await usdc(payer.address)).toBe("100");
  });

  it("a void releases what is still held to the payer, and nothing can be captured afterwards", async () => {
    const { merchant, payer, id } = await authorized("10.00");
    await capture(id, { amount: "2", finalCapture: false });
    land();
    const voided = await call(sandbox, "POST", `${PS}/${id}/voids`, { body: {} });
    expect(voided.status, voided.text).toBe(200);
    expect(voided.body).toMatchObject({ status: "pending", amount: "8.00" });
    land();
    expect(await usdc(payer.address)).toBe("98");
    expect(await usdc(merchant)).toBe("2");
    expect(await getSession(sandbox, id)).toMatchObject({ status: "void_succeeded", balances: { capturable: "0", captured: "2.00" } });
    expect((await capture(id, { finalCapture: true })).body.errorType).toBe("no_capturable_balance");
    expect((await call(sandbox, "POST", `${PS}/${id}/voids`, { body: {} })).body.errorType).toBe("no_voidable_balance");
    expect((await call(sandbox, "GET", `${PS}/${id}/voids`)).body.voids).toHaveLength(1);
    expect((await call(sandbox, "GET", `${PS}/${id}/voids/${voided.body.voidId}`)).body.status).toBe("succeeded");
  });

  it("refuses a capture after captureExpiresAt (the session stays authorized; a void still releases the funds)", async () => {
    const now = sandbox.clock.now();
    const { payer, id } = await authorized("10", {
      expiries: { authorizationExpiresAt: new Date(now + 60_000).toISOString(), captureExpiresAt: new Date(now + 120_000).toISOString() },
    });
    sandbox.clock.advance(121_000);
    const late = await capture(id, { finalCapture: true });
    expect(late.status).toBe(400);
    expect(late.body.errorType).toBe("capture_expired");
    expect((await getSession(sandbox, id)).status).toBe("authorization_succeeded");
    await call(sandbox, "POST", `${PS}/${id}/voids`, { body: {} });
    land();
    expect(await usdc(payer.address)).toBe("100");
  });

  it("autoCapture captures everything, finally, as soon as the authorization lands, under the authorization's labels", async () => {
    const merchant = newAccount().address;
    const payer = await payerWith("100000000");
    const session = await createSession(sandbox, merchant, "7.50", { autoCapture: true });
    const id = session.paymentSessionId;
    await payFromWallet(sandbox, id, payer);
    land();
    const s = await getSession(sandbox, id);
    expect(s.status).toBe("capture_pending");
    expect(s.captures[0]).toMatchObject({ status: "pending", amount: "7.50", finalCapture: true, customerDisplay: s.authorizations[0].customerDisplay });
    expect(s.captures[0].customerDisplay.referenceCode).toBe(session.customerDisplay.orderCode);
    expect(s.captures[0].externalReferenceId).toBeUndefined();
    land();
    expect((await getSession(sandbox, id)).status).toBe("capture_succeeded");
    expect(await usdc(merchant)).toBe("7.5");
  });

  it("a capture repeated with its X-Idempotency-Key is answered again, not made twice; the key with another body is a 422", async () => {
    const { merchant, id } = await authorized("10");
    const key = { "X-Idempotency-Key": `capture-${id}` };
    const first = await capture(id, { amount: "1", finalCapture: false }, key);
    const again = await capture(id, { amount: "1", finalCapture: false }, key);
    expect(again.status).toBe(200);
    expect(again.body.captureId).toBe(first.body.captureId);
    const other = await capture(id, { amount: "2", finalCapture: false }, key);
    expect(other.status).toBe(422);
    expect(other.body.errorType).toBe("idempotency_error");
    land();
    expect(await usdc(merchant)).toBe("1");
    expect((await getSession(sandbox, id)).captures).toHaveLength(1);
  });
});

describe("authorizations read back", () => {
  it("lists and gets the session's authorizations; another project sees none of it", async () => {
    const payer = await payerWith("10000000");
    const session = await createSession(sandbox, newAccount().address, "1");
    const { res } = await payFromWallet(sandbox, session.paymentSessionId, payer);
    const list = await call(sandbox, "GET", `${PS}/${session.paymentSessionId}/authorizations`);
    expect(list.body.authorizations.map((a: { authorizationId: string }) => a.authorizationId)).toEqual([res.body.authorizationId]);
    const one = await call(sandbox, "GET", `${PS}/${session.paymentSessionId}/authorizations/${res.body.authorizationId}`);
    expect(one.body).toMatchObject({ status: "pending", source: { address: payer.address } });
    expect((await call(sandbox, "GET", `${PS}/${session.paymentSessionId}/authorizations/authorization_00000000-0000-4000-8000-000000000000`)).status).toBe(
      404,
    );

    const other = (await call(sandbox, "POST", "/_sandbox/projects", { body: {}, anonymous: true })).body;
    expect((await call(sandbox, "GET", `${PS}/${session.paymentSessionId}`, { credentials: other })).status).toBe(404);
    expect((await call(sandbox, "GET", PS, { credentials: other })).body.paymentSessions).toEqual([]);
  });
});
