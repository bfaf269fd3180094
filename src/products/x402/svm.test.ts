/**
 * The facilitator on Solana: a payer's partially signed transferChecked
 * (built here with @solana/kit and the SPL programs' own clients) is
 * verified against its requirements and the ledger, then settled with the
 * facilitator's fee-payer signature; every layout rule has its reason. The
 * end user's x402 signing produces payments the facilitator accepts.
 */
import { ed25519 } from "@noble/curves/ed25519.js";
import { getSetComputeUnitLimitInstruction, getSetComputeUnitPriceInstruction } from "@solana-program/compute-budget";
import { findAssociatedTokenPda, getTransferCheckedInstruction, TOKEN_PROGRAM_ADDRESS } from "@solana-program/token";
import {
  address,
  appendTransactionMessageInstructions,
  createKeyPairSignerFromPrivateKeyBytes,
  createSolanaRpc,
  createNoopSigner,
  createTransactionMessage,
  getBase58Encoder,
  getBase64EncodedWireTransaction,
  getTransactionDecoder,
  partiallySignTransactionMessageWithSigners,
  signature as kitSignature,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  type Blockhash,
  type Instruction,
  type TransactionSigner,
} from "@solana/kit";
import { randomBytes } from "node:crypto";
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "cdp-sandbox";
import { call, endUserSession, fund, hostOf, withSandbox } from "#test/helpers/sandbox.js";
import { mintBearer } from "#test/helpers/tokens.js";
import { USDC_SOLANA_DEVNET } from "#test/helpers/x402.js";

let sandbox: Sandbox;
let rpcUrl: string;
let feePayer: string;
const DEVNET = "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1";
const MEMO = address("MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr");

beforeAll(async () => {
  sandbox = await withSandbox({ seed: "x402-svm", validateResponses: true });
  const path = "/apikeys/v1/tokens/active";
  const token = await mintBearer(sandbox.credentials.apiKeyId, sandbox.credentials.apiKeySecret, { method: "GET", host: `http://${hostOf(sandbox)}`, path });
  rpcUrl = `/rpc/v1/solana-devnet/${(await request(sandbox.url).get(path).set("Authorization", `Bearer ${token}`)).body.id}`;
  feePayer = (await call(sandbox, "GET", "/platform/v2/x402/supported")).body.signers["solana:*"][0];
});
afterAll(() => sandbox.close());

const verify = (body: unknown) => call(sandbox, "POST", "/platform/v2/x402/verify", { body });
const settle = (body: unknown) => call(sandbox, "POST", "/platform/v2/x402/settle", { body });
const merchant = async () => (await createKeyPairSignerFromPrivateKeyBytes(randomBytes(32))).address;

async function latestBlockhash() {
  const res = await request(sandbox.url).post(rpcUrl).send({ jsonrpc: "2.0", id: 1, method: "getLatestBlockhash", params: [] });
  return res.body.result.value as { blockhash: Blockhash; lastValidBlockHeight: number };
}

async function usdcOf(owner: string) {
  const res = await call(sandbox, "GET", `/platform/v2/solana/token-balances/solana-devnet/${owner}`);
  return (
    (res.body.balances as Array<{ token: { mintAddress: string }; amount: { amount: string } }>).find((b) => b.token.mintAddress === USDC_SOLANA_DEVNET)?.amount
      .amount ?? "0"
  );
}

const requirementsFor = (payTo: string, amount: string, extra: Record<string, unknown> = {}) => ({
  scheme: "exact",
  network: DEVNET,
  asset: USDC_SOLANA_DEVNET,
  amount,
  payTo,
  maxTimeoutSeconds: 60,
  extra: { feePayer, ...extra },
});

interface Build {
  amount?: bigint;
  mint?: string;
  to?: string;
  fee?: string;
  price?: bigint;
  extra?: Instruction[];
  without?: "limit";
  authority?: TransactionSigner;
  blockhash?: Blockhash;
  decimals?: number;
}

/** A funded payer's transferChecked, partially signed as an x402 client signs it. */
async function buildPayment(payTo: string, amount: string, b: Build = {}) {
  const payer = b.authority ?? (await createKeyPairSignerFromPrivateKeyBytes(randomBytes(32)));
  await fund(sandbox, { network: "solana-devnet", address: payer.address, token: "USDC", amount: "1000000" });
  const mint = address(b.mint ?? USDC_SOLANA_DEVNET);
  const [source] = await findAssociatedTokenPda({ mint, owner: payer.address, tokenProgram: TOKEN_PROGRAM_ADDRESS });
  const [destination] = await findAssociatedTokenPda({ mint, owner: address(b.to ?? payTo), tokenProgram: TOKEN_PROGRAM_ADDRESS });
  const instructions: Instruction[] = [
    ...(b.without === "limit" ? [] : [getSetComputeUnitLimitInstruction({ units: 20_000 })]),
    getSetComputeUnitPriceInstruction({ microLamports: b.price ?? 1n }),
    getTransferCheckedInstruction({ source, mint, destination, authority: payer, amount: b.amount ?? BigInt(amount), decimals: b.decimals ?? 6 }),
    { programAddress: MEMO, data: new TextEncoder().encode(randomBytes(16).toString("hex")) },
    ...(b.extra ?? []),
  ];
  const lifetime = b.blockhash
    ? { blockhash: b.blockhash, lastValidBlockHeight: 0n }
    : await latestBlockhash().then((l) => ({ ...l, lastValidBlockHeight: BigInt(l.lastValidBlockHeight) }));
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayerSigner(createNoopSigner(address(b.fee ?? feePayer)), m),
    (m) => setTransactionMessageLifetimeUsingBlockhash(lifetime, m),
    (m) => appendTransactionMessageInstructions(instructions, m),
  );
  const signed = await partiallySignTransactionMessageWithSigners(message);
  const requirements = requirementsFor(payTo, amount);
  return {
    payer,
    requirements,
    body: {
      x402Version: 2,
      paymentPayload: { x402Version: 2, accepted: requirements, payload: { transaction: getBase64EncodedWireTransaction(signed) } },
      paymentRequirements: requirements,
    },
  };
}

describe("verify and settle an SPL payment end to end", () => {
  it("verifies, settles with the fee payer's signature, moves USDC between wallets and refuses the same transaction twice", async () => {
    const payTo = await merchant();
    const { payer, body } = await buildPayment(payTo, "150000");
    const verified = await verify(body);
    expect(verified.status).toBe(200);
    expect(verified.body).toEqual({ isValid: true, payer: payer.address });
    const settled = await settle(body);
    expect(settled.status).toBe(200);
    expect(settled.body).toMatchObject({ success: true, payer: payer.address, network: DEVNET, amount: "150000" });
    // The transaction id is the fee payer's signature over the payer's message: check it with noble.
    const tx = getTransactionDecoder().decode(Buffer.from(body.paymentPayload.payload.transaction, "base64"));
    const signature = new Uint8Array(getBase58Encoder().encode(settled.body.transaction));
    expect(ed25519.verify(signature, new Uint8Array(tx.messageBytes), new Uint8Array(getBase58Encoder().encode(feePayer)))).toBe(true);
    expect(await usdcOf(payer.address)).toBe("850000");
    expect(await usdcOf(payTo)).toBe("150000");
    const status = await request(sandbox.url)
      .post(rpcUrl)
      .send({ jsonrpc: "2.0", id: 1, method: "getSignatureStatuses", params: [[settled.body.transaction]] });
    expect(status.body.result.value[0]).toMatchObject({ confirmationStatus: "finalized" });
    const again = await settle(body);
    expect(again.status).toBe(400);
    expect(again.body).toMatchObject({ success: false, errorReason: "duplicate_settlement" });
  });
});

describe("a settlement is a transaction the chain ran", () => {
  it("answers getTransaction (read with @solana/kit) with the co-signed message, the runtime's logs and the USDC it moved", async () => {
    const payTo = await merchant();
    const { payer, body } = await buildPayment(payTo, "250000");
    const settled = await settle(body);
    expect(settled.status).toBe(200);
    const rpc = createSolanaRpc(`${sandbox.url}${rpcUrl}`);
    const landed = await rpc
      .getTransaction(kitSignature(settled.body.transaction), { maxSupportedTransactionVersion: 0, encoding: "json", commitment: "confirmed" })
      .send();
    expect(landed).not.toBeNull();
    const { meta, transaction } = landed!;
    // Both signatures are there: the facilitator's as fee payer (the transaction id) and the payer's.
    expect(transaction.signatures).toEqual([settled.body.transaction, expect.any(String)]);
    expect(transaction.message.accountKeys[0]).toBe(feePayer);
    expect(meta?.err).toBeNull();
    expect(meta?.fee).toBe(10_000n); // two signatures at 5,000 lamports: the facilitator pays, the payer needs no SOL
    expect(meta?.logMessages).toEqual(
      expect.arrayContaining(["Program TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA invoke [1]", "Program TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA success"]),
    );
    const amountOf = (rows: readonly { owner?: string; uiTokenAmount: { amount: string } }[] | undefined, owner: string) =>
      rows?.find((row) => row.owner === owner)?.uiTokenAmount.amount;
    expect(amountOf(meta?.preTokenBalances, payer.address)).toBe("1000000");
    expect(amountOf(meta?.postTokenBalances, payer.address)).toBe("750000");
    expect(amountOf(meta?.preTokenBalances, payTo)).toBe("0");
    expect(amountOf(meta?.postTokenBalances, payTo)).toBe("250000");
    expect(await usdcOf(payTo)).toBe("250000");
  });
});

describe("verify refuses Solana payments the exact scheme does not allow", () => {
  const expectInvalid = async (body: unknown, reason: string) => {
    const res = await verify(body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ isValid: false, invalidReason: reason });
  };
  const withExtra = (body: Awaited<ReturnType<typeof buildPayment>>["body"], extra: Record<string, unknown>) => {
    const requirements = { ...body.paymentRequirements, extra };
    return { ...body, paymentPayload: { ...body.paymentPayload, accepted: requirements }, paymentRequirements: requirements };
  };

  it("fee payer: missing from extra, not the facilitator's, or not the transaction's", async () => {
    const payTo = await merchant();
    const { body } = await buildPayment(payTo, "1000");
    await expectInvalid(withExtra(body, {}), "invalid_exact_solana_payload_missing_fee_payer");
    await expectInvalid(withExtra(body, { feePayer: payTo }), "invalid_exact_solana_fee_payer_not_managed_by_facilitator");
    await expectInvalid((await buildPayment(payTo, "1000", { fee: payTo })).body, "invalid_exact_solana_fee_payer_mismatch");
  });

  it("a transaction that does not decode, or whose payer signature is missing", async () => {
    const { body } = await buildPayment(await merchant(), "1000");
    await expectInvalid(
      { ...body, paymentPayload: { ...body.paymentPayload, payload: { transaction: "bm90IGEgdHJhbnNhY3Rpb24=" } } },
      "invalid_exact_solana_payload_transaction_could_not_be_decoded",
    );
    const noop = createNoopSigner(address((await createKeyPairSignerFromPrivateKeyBytes(randomBytes(32))).address));
    await expectInvalid((await buildPayment(await merchant(), "1000", { authority: noop })).body, "invalid_exact_solana_payload_transaction");
  });

  it("instruction layout: count, compute limit, compute price and its cap, the transfer", async () => {
    const payTo = await merchant();
    await expectInvalid(
      (await buildPayment(payTo, "1000", { without: "limit" })).body,
      "invalid_exact_solana_payload_transaction_instructions_compute_limit_instruction",
    );
    await expectInvalid(
      (await buildPayment(payTo, "1000", { price: 6_000_000n })).body,
      "invalid_exact_solana_payload_transaction_instructions_compute_price_instruction_too_high",
    );
    const memo = (n: number) => Array.from({ length: n }, () => ({ programAddress: MEMO, data: new Uint8Array([104, 105]) }));
    await expectInvalid((await buildPayment(payTo, "1000", { extra: memo(3) })).body, "invalid_exact_solana_payload_transaction_instructions_length");
    const stray = { programAddress: address("11111111111111111111111111111111"), data: new Uint8Array([0]) };
    await expectInvalid((await buildPayment(payTo, "1000", { extra: [stray] })).body, "invalid_exact_solana_payload_unknown_fifth_instruction");
  });

  it("mint, recipient and amount must be the requirements'", async () => {
    const payTo = await merchant();
    await expectInvalid(
      (await buildPayment(payTo, "1000", { mint: "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v" })).body,
      "invalid_exact_solana_payload_mint_mismatch",
    );
    await expectInvalid((await buildPayment(payTo, "1000", { to: await merchant() })).body, "invalid_exact_solana_payload_recipient_mismatch");
    await expectInvalid((await buildPayment(payTo, "1000", { amount: 999n })).body, "invalid_exact_solana_payload_amount_insufficient");
    await expectInvalid((await buildPayment(payTo, "1000", { amount: 1001n })).body, "invalid_exact_svm_payload_transaction_amount_mismatch");
  });

  it("a memo the seller asks for must be the one memo", async () => {
    const { body } = await buildPayment(await merchant(), "1000");
    await expectInvalid(withExtra(body, { feePayer, memo: "order-42" }), "invalid_exact_solana_payload_memo_mismatch");
  });

  it("simulation fails on a stale blockhash (150 slots on the sandbox clock); insufficient_funds past the payer's balance", async () => {
    const payTo = await merchant();
    const { body } = await buildPayment(payTo, "1000");
    expect((await verify(body)).status).toBe(200);
    sandbox.clock.advance(61_000);
    await expectInvalid(body, "invalid_exact_solana_transaction_simulation_failed");
    await expectInvalid((await buildPayment(payTo, "2000000")).body, "insufficient_funds");
  });

  it("simulation fails on a transferChecked whose decimals are not the mint's, and settle changes nothing", async () => {
    const payTo = await merchant();
    const { payer, body } = await buildPayment(payTo, "1000", { decimals: 9 });
    await expectInvalid(body, "invalid_exact_solana_transaction_simulation_failed");
    const settled = await settle(body);
    expect(settled.status).toBe(400);
    expect(settled.body).toMatchObject({ success: false, errorReason: "invalid_exact_solana_transaction_simulation_failed" });
    expect(settled.body.errorMessage).toContain("MintDecimalsMismatch");
    expect(await usdcOf(payer.address)).toBe("1000000");
    expect(await usdcOf(payTo)).toBe("0");
  });
});

describe("signSolanaX402PaymentWithEndUserAccount", () => {
  const EW = "/platform/v2/embedded-wallet-api/end-users";
  let n = 0;
  async function newUser() {
    const userId = `x402-user-${++n}`;
    await call(sandbox, "POST", "/platform/v2/end-users", {
      body: { userId, authenticationMethods: [{ type: "email", email: `${userId}@example.com` }], solanaAccount: {} },
      wallet: true,
    });
    const user = (await call(sandbox, "GET", `/platform/v2/end-users/${userId}`)).body;
    return { userId, sol: user.solanaAccounts[0] as string, session: await endUserSession(sandbox, userId) };
  }
  const paymentRequired = (payTo: string, amount: string) => ({
    x402Version: 2,
    resource: { url: "https://tides.example.org/v1/forecast", description: "Tides", mimeType: "application/json" },
    accepts: [
      {
        scheme: "exact",
        network: "eip155:84532",
        asset: "0x036CbD53842c5426634e7929541eC2318f3dCF7e",
        amount,
        payTo: "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed",
        maxTimeoutSeconds: 60,
      },
      requirementsFor(payTo, amount),
    ],
  });
  const sign = (u: Awaited<ReturnType<typeof newUser>>, body: Record<string, unknown>, asUser = true) =>
    call(sandbox, "POST", `${EW}/${u.userId}/solana/sign/x402-payment`, {
      body: { address: u.sol, ...body },
      ...(asUser ? { endUser: u.session } : { wallet: true }),
    });

  it("signs with the end user's key a payment the facilitator verifies and settles", async () => {
    const u = await newUser();
    await fund(sandbox, { network: "solana-devnet", address: u.sol, token: "USDC", amount: "500000" });
    const payTo = await merchant();
    const required = paymentRequired(payTo, "120000");
    const res = await sign(u, { paymentRequired: required, acceptsIndex: 1 });
    expect(res.status).toBe(200);
    const { paymentPayload } = res.body;
    expect(paymentPayload).toMatchObject({ x402Version: 2, accepted: required.accepts[1], resource: required.resource });
    const body = { x402Version: 2, paymentPayload, paymentRequirements: required.accepts[1] };
    expect((await verify(body)).body).toEqual({ isValid: true, payer: u.sol });
    expect((await settle(body)).body).toMatchObject({ success: true, payer: u.sol });
    expect(await usdcOf(payTo)).toBe("120000");
  });

  it("signs a version 1 payment on solana-devnet that settles with the version 1 network name", async () => {
    const u = await newUser();
    await fund(sandbox, { network: "solana-devnet", address: u.sol, token: "USDC", amount: "9000" });
    const payTo = await merchant();
    const option = {
      scheme: "exact",
      network: "solana-devnet",
      maxAmountRequired: "9000",
      resource: "https://tides.example.org/v1",
      description: "Tides",
      mimeType: "application/json",
      payTo,
      maxTimeoutSeconds: 60,
      asset: USDC_SOLANA_DEVNET,
      extra: { feePayer },
    };
    const res = await sign(u, { paymentRequired: { x402Version: 1, accepts: [option] }, acceptsIndex: 0 });
    expect(res.status).toBe(200);
    expect(res.body.paymentPayload).toMatchObject({ x402Version: 1, scheme: "exact", network: "solana-devnet" });
    const settled = await settle({ x402Version: 1, paymentPayload: res.body.paymentPayload, paymentRequirements: option });
    expect(settled.body).toMatchObject({ success: true, network: "solana-devnet", payer: u.sol, amount: "9000" });
    expect(await usdcOf(u.sol)).toBe("0");
  });

  it("answers 422 for an index out of range or an option that is not on Solana, 404 for another account", async () => {
    const u = await newUser();
    const required = paymentRequired(await merchant(), "1000");
    const out = await sign(u, { paymentRequired: required, acceptsIndex: 2 });
    expect(out.status).toBe(422);
    expect(out.body.errorType).toBe("invalid_request");
    expect((await sign(u, { paymentRequired: required, acceptsIndex: 0 })).status).toBe(422);
    expect((await sign(u, { paymentRequired: required, acceptsIndex: 1, address: await merchant() })).status).toBe(404);
  });

  it("lets the developer sign only under a delegation grant", async () => {
    const u = await newUser();
    const required = paymentRequired(await merchant(), "1000");
    const refused = await sign(u, { paymentRequired: required, acceptsIndex: 1 }, false);
    expect(refused.status).toBe(403);
    expect(refused.body.errorType).toBe("delegation_not_found");
    const grant = await call(sandbox, "POST", `${EW}/${u.userId}/address/${u.sol}/delegation`, {
      body: { expiresAt: new Date(sandbox.clock.now() + 3600_000).toISOString() },
      endUser: u.session,
    });
    expect(grant.status).toBe(201);
    expect((await sign(u, { paymentRequired: required, acceptsIndex: 1 }, false)).status).toBe(200);
  });
});
