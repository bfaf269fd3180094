/**
 * Faults after the commit on the sending paths: project EVM and Solana sends,
 * end users' asset sends and user operations, smart accounts' user operations
 * and the faucets. Each attempt happens and is kept, then the client gets an
 * error, a gateway page or a broken connection instead of the answer; the
 * ledger, the record and the node show the effect, a retry with the same
 * X-Idempotency-Key replays the real answer without a second effect, and one
 * without it performs the effect again, marked X-Sandbox-Duplicate-Of.
 */
import { randomBytes } from "node:crypto";
import { ed25519 } from "@noble/curves/ed25519.js";
import type { CdpClient } from "@coinbase/cdp-sdk";
import {
  address as toAddress,
  appendTransactionMessageInstruction,
  compileTransaction,
  createTransactionMessage,
  getAddressDecoder,
  getTransactionEncoder,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  type Blockhash,
} from "@solana/kit";
import request from "supertest";
import { serializeTransaction, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "cdp-sandbox";
import { faultAfter, GATEWAY_PAGE, outcome, repeated, replayed, rpc, switchOnAfterCommitFaults, tokenBalance } from "#test/helpers/afterCommit.js";
import { call, endUserSession, fund, withSandbox } from "#test/helpers/sandbox.js";
import { cdpClientFor } from "#test/helpers/cdpClient.js";

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await withSandbox({ seed: "after-commit-sends" });
  await switchOnAfterCommitFaults(sandbox);
});
afterAll(() => sandbox.close());

const P = "/platform/v2";
const EW = `${P}/embedded-wallet-api/end-users`;
const key = (k: string) => ({ "X-Idempotency-Key": k });
const newEvmAddress = () => privateKeyToAccount(generatePrivateKey()).address;
const newSolanaAddress = () => getAddressDecoder().decode(ed25519.getPublicKey(randomBytes(32)));
const newEvmAccount = async () => (await call(sandbox, "POST", `${P}/evm/accounts`, { body: {}, wallet: true })).body.address as `0x${string}`;
const evm = (address: string, symbol = "ETH") => tokenBalance(sandbox, "evm", "base-sepolia", address, symbol);
const sol = (address: string, symbol = "SOL") => tokenBalance(sandbox, "solana", "solana-devnet", address, symbol);

/** Mines what is pending and reads the transaction's receipt from the node. */
async function receipt(hash: string) {
  sandbox.clock.advance(4000);
  return (await rpc(sandbox, "base-sepolia", "eth_getTransactionReceipt", [hash])) as { status: string; blockNumber: string } | null;
}
async function signatureStatus(signature: string) {
  sandbox.clock.advance(1000);
  return ((await rpc(sandbox, "solana-devnet", "getSignatureStatuses", [[signature]])) as { value: Array<{ err: unknown } | null> }).value[0];
}

/** A system-program transfer of `lamports` from the fee payer, unsigned, on the node's latest blockhash. */
async function solTransfer(from: string, to: string, lamports: bigint): Promise<string> {
  const latest = (await rpc(sandbox, "solana-devnet", "getLatestBlockhash", [])) as { value: { blockhash: string; lastValidBlockHeight: number } };
  const data = new Uint8Array(12);
  new DataView(data.buffer).setUint32(0, 2, true); // SystemInstruction::Transfer
  new DataView(data.buffer).setBigUint64(4, lamports, true);
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayer(toAddress(from), m),
    (m) =>
      setTransactionMessageLifetimeUsingBlockhash(
        { blockhash: latest.value.blockhash as Blockhash, lastValidBlockHeight: BigInt(latest.value.lastValidBlockHeight) },
        m,
      ),
    (m) =>
      appendTransactionMessageInstruction(
        {
          programAddress: toAddress("11111111111111111111111111111111"),
          accounts: [
            { address: toAddress(from), role: 3 as const },
            { address: toAddress(to), role: 1 as const },
          ],
          data,
        },
        m,
      ),
  );
  return Buffer.from(getTransactionEncoder().encode(compileTransaction(message))).toString("base64");
}

describe("project sends", () => {
  it("sendEvmTransaction: a 500 after the send, yet the ETH moved and the transaction is mined", async () => {
    const from = await newEvmAccount();
    await fund(sandbox, { network: "base-sepolia", address: from, amount: "1000000000000000" });
    const to = newEvmAddress();
    const transaction = serializeTransaction({ type: "eip1559", chainId: 84532, to, value: 1000n });
    const send = (headers: Record<string, string> = {}) =>
      call(sandbox, "POST", `${P}/evm/accounts/${from}/send/transaction`, { body: { network: "base-sepolia", transaction }, wallet: true, headers });

    const lost = await outcome(send({ ...key("evm-send"), "X-Sandbox-Scenario": "send-succeeds-then-500" }));
    expect(lost.status).toBe(500);
    expect(lost.answer?.body.errorType).toBe("internal_server_error");
    expect(await evm(to)).toBe("1000");
    const replay = await replayed(send(key("evm-send")));
    expect(await receipt(replay.body.transactionHash)).toMatchObject({ status: "0x1" });
    expect(await evm(to)).toBe("1000");
    const again = await repeated(sandbox, send(), lost);
    expect(again.body.transactionHash).not.toBe(replay.body.transactionHash); // the next nonce: a second transfer
    expect(await evm(to)).toBe("2000");
  });

  it("sendSolanaTransaction: the connection resets after the send, yet the lamports moved and the signature is confirmed", async () => {
    const from = (await call(sandbox, "POST", `${P}/solana/accounts`, { body: {}, wallet: true })).body.address as string;
    await fund(sandbox, { network: "solana-devnet", address: from, amount: "10000000" });
    const to = newSolanaAddress();
    const transaction = await solTransfer(from, to, 1_000_000n); // a new account must be left rent-exempt
    const send = (headers: Record<string, string> = {}) =>
      call(sandbox, "POST", `${P}/solana/accounts/send/transaction`, { body: { network: "solana-devnet", transaction }, wallet: true, headers });

    const lost = await outcome(send({ ...key("sol-send"), "X-Sandbox-Scenario": "send-then-connection-reset" }));
    expect(lost.error).toBe("ECONNRESET");
    expect(await sol(to)).toBe("1000000");
    const replay = await replayed(send(key("sol-send")));
    expect(await signatureStatus(replay.body.transactionSignature)).toMatchObject({ err: null });
    expect(await sol(to)).toBe("1000000");
    // The same unsigned transaction without the key is a new send: the platform signs it anew on another recent
    // blockhash, so it lands again under a new signature, and the duplicate detector says it repeats the first.
    const again = await send();
    expect(again.status).toBe(200);
    expect(again.body.transactionSignature).not.toBe(replay.body.transactionSignature);
    expect(again.headers["x-sandbox-duplicate-of"]).toEqual(expect.any(String));
    expect(await sol(to)).toBe("2000000");
  });
});

describe("end users", () => {
  async function endUser(id: string) {
    const created = await call(sandbox, "POST", `${P}/end-users`, {
      body: { userId: id, authenticationMethods: [{ type: "email", email: `${id}@example.com` }], evmAccount: { createSmartAccount: true }, solanaAccount: {} },
      wallet: true,
    });
    expect(created.status, created.text).toBe(201);
    const { evmAccounts, evmSmartAccounts, solanaAccounts } = created.body as Record<string, string[]>;
    return { id, eoa: evmAccounts![0]!, smart: evmSmartAccounts![0]!, sol: solanaAccounts![0]!, session: await endUserSession(sandbox, id) };
  }

  it("sendEvmAssetWithEndUserAccount: the connection closes after the headers, yet the USDC moved in a mined transaction", async () => {
    const u = await endUser("after-evm-asset");
    await fund(sandbox, { network: "base-sepolia", address: u.eoa, amount: "1000000000000000" });
    await fund(sandbox, { network: "base-sepolia", address: u.eoa, token: "USDC", amount: "5000000" });
    const to = newEvmAddress();
    const send = (headers: Record<string, string> = {}) =>
      call(sandbox, "POST", `${EW}/${u.id}/evm/${u.eoa}/send/usdc`, { body: { to, amount: "1.5", network: "base-sepolia" }, endUser: u.session, headers });

    const lost = await outcome(send({ ...key("eu-evm"), ...faultAfter("close-after-headers") }));
    expect(lost.error).toBe("ECONNRESET");
    expect(await evm(to, "USDC")).toBe("1500000");
    const replay = await replayed(send(key("eu-evm")));
    expect(await receipt(replay.body.transactionHash)).toMatchObject({ status: "0x1" });
    await repeated(sandbox, send(), lost);
    expect(await evm(to, "USDC")).toBe("3000000");
  });

  it("sendSolanaAssetWithEndUserAccount: the body is cut short, yet the USDC moved and the signature is confirmed", async () => {
    const u = await endUser("after-sol-asset");
    await fund(sandbox, { network: "solana-devnet", address: u.sol, token: "USDC", amount: "5000000" });
    const to = newSolanaAddress();
    const send = (headers: Record<string, string> = {}) =>
      call(sandbox, "POST", `${EW}/${u.id}/solana/${u.sol}/send/usdc`, {
        body: { to, amount: "1", network: "solana-devnet", useCdpSponsor: true },
        endUser: u.session,
        headers,
      });

    const lost = await outcome(send({ ...key("eu-sol"), ...faultAfter("truncate") }));
    expect(lost.error).toBe("ECONNRESET");
    expect(await sol(to, "USDC")).toBe("1000000");
    const replay = await replayed(send(key("eu-sol")));
    expect(await signatureStatus(replay.body.transactionSignature)).toMatchObject({ err: null });
    await repeated(sandbox, send(), lost);
    expect(await sol(to, "USDC")).toBe("2000000");
  });

  it("sendUserOperationWithEndUserAccount: a 502 after the broadcast, yet the operation completes and the ETH moved", async () => {
    const u = await endUser("after-eu-userop");
    await fund(sandbox, { network: "base-sepolia", address: u.smart, amount: "1000000" });
    const to = newEvmAddress();
    const body = { network: "base-sepolia", calls: [{ to, value: "1000", data: "0x" }], useCdpPaymaster: true };
    const send = (headers: Record<string, string> = {}) =>
      call(sandbox, "POST", `${EW}/${u.id}/evm/smart-accounts/${u.smart}/send`, { body, endUser: u.session, headers });

    const lost = await outcome(send({ ...key("eu-userop"), "X-Sandbox-Scenario": "user-operation-broadcast-then-502" }));
    expect(lost.status).toBe(502);
    sandbox.clock.advance(4000);
    expect(await evm(to)).toBe("1000");
    // No operation of the API reads an end user's user operation back: the answer names it, the node shows its effect.
    expect((await replayed(send(key("eu-userop")))).body.userOpHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await rpc(sandbox, "base-sepolia", "eth_getBalance", [to, "latest"])).toBe("0x3e8");
    await repeated(sandbox, send(), lost);
    sandbox.clock.advance(4000);
    expect(await evm(to)).toBe("2000");
  });
});

describe("smart accounts", () => {
  it("prepareAndSendUserOperation: a gateway page after the broadcast, yet the operation completes and the ETH moved", async () => {
    const owner = await newEvmAccount();
    const smart = (await call(sandbox, "POST", `${P}/evm/smart-accounts`, { body: { owners: [owner] } })).body.address as string;
    await fund(sandbox, { network: "base-sepolia", address: smart, amount: "1000000000000000" });
    const to = newEvmAddress();
    const send = (headers: Record<string, string> = {}) =>
      call(sandbox, "POST", `${P}/evm/smart-accounts/${smart}/user-operations/prepare-and-send`, {
        body: { network: "base-sepolia", calls: [{ to, value: "10", data: "0x" }], useCdpPaymaster: true },
        wallet: true,
        headers,
      });

    const lost = await outcome(send({ ...key("smart-pas"), ...faultAfter("raw") }));
    expect(lost.status).toBe(502);
    expect(lost.answer?.headers["content-type"]).toMatch(/^text\/html/);
    expect(lost.answer?.text).toBe(GATEWAY_PAGE);
    sandbox.clock.advance(4000);
    expect(await evm(to)).toBe("10");
    const replay = await replayed(send(key("smart-pas")));
    const op = (await call(sandbox, "GET", `${P}/evm/smart-accounts/${smart}/user-operations/${replay.body.userOpHash}`)).body;
    expect(op.status).toBe("complete");
    expect(await receipt(op.transactionHash)).toMatchObject({ status: "0x1" });
    await repeated(sandbox, send(), lost);
    sandbox.clock.advance(4000);
    expect(await evm(to)).toBe("20");
  });

  it("sendUserOperation: an error after the broadcast; the keyed retry replays it, a keyless one is refused (an operation is sent once)", async () => {
    const owner = privateKeyToAccount(generatePrivateKey());
    const smart = (await call(sandbox, "POST", `${P}/evm/smart-accounts`, { body: { owners: [owner.address] } })).body.address as string;
    await fund(sandbox, { network: "base-sepolia", address: smart, amount: "1000000000000000" });
    const to = newEvmAddress();
    const base = `${P}/evm/smart-accounts/${smart}/user-operations`;
    const prepared = await call(sandbox, "POST", base, { body: { network: "base-sepolia", calls: [{ to, value: "7", data: "0x" }] } });
    expect(prepared.status).toBe(201);
    const signature = await owner.sign({ hash: prepared.body.userOpHash as Hex });
    const send = (headers: Record<string, string> = {}) => call(sandbox, "POST", `${base}/${prepared.body.userOpHash}/send`, { body: { signature }, headers });

    const lost = await outcome(send({ ...key("smart-send"), "X-Sandbox-Error": "service_unavailable;phase=after" }));
    expect(lost.status).toBe(503);
    sandbox.clock.advance(4000);
    expect(await evm(to)).toBe("7");
    expect((await replayed(send(key("smart-send")))).body.userOpHash).toBe(prepared.body.userOpHash);
    const again = await send();
    expect(again.status).toBe(400);
    expect(again.headers["x-sandbox-duplicate-of"]).toBeUndefined();
    sandbox.clock.advance(4000);
    expect(await evm(to)).toBe("7");
  });
});

describe("faucets", () => {
  it("requestEvmFaucet: a 500 after the payout, yet the ETH arrived in a mined transaction", async () => {
    const address = newEvmAddress();
    const ask = (headers: Record<string, string> = {}) =>
      call(sandbox, "POST", `${P}/evm/faucet`, { body: { network: "base-sepolia", address, token: "eth" }, headers });
    const lost = await outcome(ask({ ...key("faucet-evm"), "X-Sandbox-Error": "internal_server_error;phase=after" }));
    expect(lost.status).toBe(500);
    const paid = BigInt(await evm(address));
    expect(paid).toBeGreaterThan(0n);
    const replay = await replayed(ask(key("faucet-evm")));
    expect(await receipt(replay.body.transactionHash)).toMatchObject({ status: "0x1" });
    expect(BigInt(await evm(address))).toBe(paid);
    await repeated(sandbox, ask(), lost);
    expect(BigInt(await evm(address))).toBe(2n * paid);
  });

  it("requestSolanaFaucet: a gateway page after the payout, yet the SOL arrived and the signature is confirmed", async () => {
    const address = newSolanaAddress();
    const ask = (headers: Record<string, string> = {}) => call(sandbox, "POST", `${P}/solana/faucet`, { body: { address, token: "sol" }, headers });
    const lost = await outcome(ask({ ...key("faucet-sol"), ...faultAfter("raw") }));
    expect(lost.status).toBe(502);
    const paid = BigInt(await sol(address));
    expect(paid).toBeGreaterThan(0n);
    const replay = await replayed(ask(key("faucet-sol")));
    expect(await signatureStatus(replay.body.transactionSignature)).toMatchObject({ err: null });
    await repeated(sandbox, ask(), lost);
    expect(BigInt(await sol(address))).toBe(2n * paid);
  });
});

describe("through the official client", () => {
  let cdp: CdpClient;
  beforeAll(() => {
    cdp = cdpClientFor(sandbox);
  });
  /** Loses the answer of the next sendEvmTransaction after the send (fresh counters on every activation). */
  async function loseNextSendAnswer(act: Record<string, string>, run: () => Promise<void>) {
    const scenario = { name: "lost-send-answer", rules: [{ match: { operationId: "sendEvmTransaction" }, when: { times: 1 }, phase: "after", ...act }] };
    await request(sandbox.url).post("/_sandbox/scenarios").send({ scenario });
    try {
      await run();
    } finally {
      await request(sandbox.url).delete("/_sandbox/scenarios?name=lost-send-answer");
    }
  }
  async function sender() {
    const from = await newEvmAccount();
    await fund(sandbox, { network: "base-sepolia", address: from, amount: "1000000000000000" });
    const to = newEvmAddress();
    return { from, to, transaction: serializeTransaction({ to, value: 4242n, chainId: 84532, type: "eip1559" }) };
  }
  const sentCount = async (from: string) => BigInt((await rpc(sandbox, "base-sepolia", "eth_getTransactionCount", [from, "latest"])) as string);

  it("a send whose answer is lost after the send throws, and the ledger holds the transfer", async () => {
    const { from, to, transaction } = await sender();
    await loseNextSendAnswer({ error: "bad_gateway" }, async () => {
      await expect(cdp.evm.sendTransaction({ address: from, network: "base-sepolia", transaction })).rejects.toMatchObject({
        statusCode: 502,
        errorType: "bad_gateway",
      });
    });
    expect(await evm(to)).toBe("4242");
    expect(await sentCount(from)).toBe(1n);
  });

  it("retries a reset after the send on its own: twice the transfer (marked) without a key, a replay with one", async () => {
    const { from, to, transaction } = await sender();
    await loseNextSendAnswer({ fault: "reset" }, async () => {
      await cdp.evm.sendTransaction({ address: from, network: "base-sepolia", transaction }); // resolves: the client's retry answered
    });
    expect(await evm(to)).toBe("8484");
    const journal = (await call(sandbox, "GET", "/_sandbox/requests")).body.requests as Array<{ operationId?: string; status: number; duplicateOf?: string }>;
    const [lost, retry] = journal.filter((r) => r.operationId === "sendEvmTransaction").slice(-2);
    expect(lost).toMatchObject({ status: 0 });
    expect(retry).toMatchObject({ status: 200, duplicateOf: expect.any(String) });

    await loseNextSendAnswer({ fault: "reset" }, async () => {
      await cdp.evm.sendTransaction({ address: from, network: "base-sepolia", transaction, idempotencyKey: "sdk-reset" });
    });
    expect(await evm(to)).toBe("12726");
    expect(await sentCount(from)).toBe(3n);
  });
});
