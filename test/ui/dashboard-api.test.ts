/**
 * The admin operations the dashboard reads and drives, over HTTP: each
 * answers from the project named by X-Sandbox-Project (or the bearer token),
 * refuses bad ids and bad parameters with the platform's error body while
 * changing nothing, and keeps the admin API's protection (Origin, admin token).
 */
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "cdp-sandbox";
import { encodeFunctionData, erc20Abi, serializeTransaction } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { fundAccount, openAccount, P } from "#test/helpers/money.js";
import { type Receiver, startReceiver } from "#test/helpers/receiver.js";
import { call, fund, withSandbox } from "#test/helpers/sandbox.js";
import { flush, subscribe } from "#test/helpers/webhooks.js";
import { signAuthorization, v2Body, v2Requirements } from "#test/helpers/x402.js";

const USDC_BASE_SEPOLIA = "0x036CbD53842c5426634e7929541eC2318f3dCF7e";
const TO = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";

let sandbox: Sandbox;
let receiver: Receiver;
beforeAll(async () => {
  [sandbox, receiver] = await Promise.all([withSandbox({ seed: "dashboard-api" }), startReceiver()]);
});
afterAll(async () => {
  await receiver.close();
  await sandbox.close();
});

/** An admin call as the dashboard makes it: no bearer token, the project named in X-Sandbox-Project. */
function admin(method: "get" | "post" | "delete", path: string, o: { body?: unknown; project?: string | null; headers?: Record<string, string> } = {}) {
  let req = request(sandbox.url)[method](`/_sandbox${path}`);
  const project = o.project === undefined ? sandbox.credentials.projectId : o.project;
  if (project !== null) req = req.set("X-Sandbox-Project", project);
  for (const [k, v] of Object.entries(o.headers ?? {})) req = req.set(k, v);
  return o.body === undefined ? req : req.send(o.body as object);
}

const expectRefused = (res: request.Response, status: number, errorType: string) => {
  expect(res.status, res.text).toBe(status);
  expect(res.body).toMatchObject({ errorType, errorMessage: expect.any(String), correlationId: expect.stringMatching(/-SBX$/) });
};

async function newEvmAccount(name: string): Promise<string> {
  const res = await call(sandbox, "POST", `${P}/evm/accounts`, { body: { name }, wallet: true });
  expect(res.status, res.text).toBe(201);
  return res.body.address as string;
}

async function send(from: string, transaction: string): Promise<string> {
  const res = await call(sandbox, "POST", `${P}/evm/accounts/${from}/send/transaction`, { body: { network: "base-sepolia", transaction }, wallet: true });
  expect(res.status, res.text).toBe(200);
  return res.body.transactionHash as string;
}

describe("projects, overview and snapshots", () => {
  it("lists every project with the default one marked, or only the project named", async () => {
    const other = await admin("post", "/projects", { body: { name: "second" }, project: null });
    expect(other.status).toBe(201);
    const all = await admin("get", "/projects", { project: null });
    expect(all.status).toBe(200);
    expect(all.body.projects.map((p: { projectId: string; isDefault: boolean }) => [p.projectId, p.isDefault])).toEqual([
      [sandbox.credentials.projectId, true],
      [other.body.projectId, false],
    ]);
    const one = await admin("get", "/projects", { project: other.body.projectId });
    expect(one.body.projects).toEqual([expect.objectContaining({ projectId: other.body.projectId, name: "second", isDefault: false })]);
  });

  it("refuses a project that does not exist (404), and a bearer token of another project (403)", async () => {
    expectRefused(await admin("get", "/overview", { project: "no-such-project" }), 404, "not_found");
    const other = await admin("post", "/projects", { body: { name: "third" }, project: null });
    const res = await call(sandbox, "GET", "/_sandbox/accounts", { headers: { "X-Sandbox-Project": other.body.projectId } });
    expectRefused(res, 403, "forbidden");
  });

  it("counts what the project holds and says where its journal and chains stand", async () => {
    const before = await admin("get", "/overview");
    expect(before.status).toBe(200);
    const address = await newEvmAccount("overview");
    await fund(sandbox, { network: "base-sepolia", address, amount: "1000000000000000" });
    await send(address, serializeTransaction({ type: "eip1559", chainId: 84532, to: TO, value: 1n }));
    const after = await admin("get", "/overview");
    expect(after.body.projectId).toBe(sandbox.credentials.projectId);
    expect(after.body.counts.evmAccounts).toBe(before.body.counts.evmAccounts + 1);
    expect(after.body.journal.lastSequence).toBeGreaterThan(before.body.journal.lastSequence);
    expect(after.body.chains).toEqual(expect.arrayContaining([expect.objectContaining({ network: "base-sepolia", transactions: expect.any(Number) })]));
    expect(after.body.clock).toEqual({ now: expect.any(String), frozen: false, offsetMs: expect.any(Number) });
  });

  it("lists the snapshots of the project named, not the global ones", async () => {
    const taken = await admin("post", "/snapshots");
    expect(taken.body.scope).toBe("project");
    const global = await admin("post", "/snapshots", { project: null });
    expect(global.body.scope).toBe("global");
    const mine = await admin("get", "/snapshots");
    expect(mine.body.snapshots).toEqual([
      { snapshotId: taken.body.snapshotId, scope: "project", projectId: sandbox.credentials.projectId, takenAt: expect.any(String) },
    ]);
    const globals = await admin("get", "/snapshots", { project: null });
    expect(globals.body.snapshots.map((s: { snapshotId: string }) => s.snapshotId)).toEqual([global.body.snapshotId]);
  });
});

describe("accounts and end users", () => {
  it("pages the accounts of a kind with their balances, and filters by text", async () => {
    const address = await newEvmAccount("balances-page");
    await fund(sandbox, { network: "base-sepolia", address, token: "USDC", amount: "2500000" });
    const res = await admin("get", "/accounts?kind=evm&q=balances-page");
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ kind: "evm", total: 1, offset: 0 });
    expect(res.body.items[0]).toMatchObject({
      kind: "evm",
      address,
      name: "balances-page",
      balances: [{ network: "base-sepolia", token: "USDC", address: USDC_BASE_SEPOLIA, decimals: 6, amount: "2500000", formatted: "2.5" }],
    });
    const page = await admin("get", "/accounts?kind=evm&offset=1&limit=1");
    expect(page.body.items).toHaveLength(1);
    expect(page.body.total).toBeGreaterThan(1);
  });

  it("refuses an unknown kind and an out-of-range limit with invalid_request", async () => {
    expectRefused(await admin("get", "/accounts?kind=bitcoin"), 400, "invalid_request");
    expectRefused(await admin("get", "/accounts?limit=0"), 400, "invalid_request");
    expectRefused(await admin("get", "/accounts?limit=201"), 400, "invalid_request");
    expectRefused(await admin("get", "/end-users?offset=-1"), 400, "invalid_request");
  });

  it("lists end users with their accounts and grants, a grant expiring on the sandbox clock", async () => {
    const created = await call(sandbox, "POST", `${P}/end-users`, {
      body: { userId: "dash-user", authenticationMethods: [{ type: "email", email: "dash@example.com" }], evmAccount: {} },
      wallet: true,
    });
    expect(created.status, created.text).toBe(201);
    const expiresAt = new Date(sandbox.clock.now() + 60 * 60_000).toISOString();
    expect((await admin("post", "/end-users/dash-user/delegation", { body: { expiresAt } })).status).toBe(201);
    const grantOf = async () => (await admin("get", "/end-users?q=dash-user")).body.items[0];
    expect(await grantOf()).toMatchObject({
      userId: "dash-user",
      authenticationMethods: ["email"],
      evmAccounts: created.body.evmAccounts,
      grants: [{ scope: "project", expiresAt, state: "active" }],
    });
    const kinds = await admin("get", "/accounts?kind=endUser&q=dash-user");
    expect(kinds.body.items[0]).toMatchObject({ kind: "endUser", userId: "dash-user", accounts: [{ kind: "evm", address: created.body.evmAccounts[0] }] });
    sandbox.clock.advance(61 * 60_000);
    expect((await grantOf()).grants[0].state).toBe("expired");
  });
});

describe("policies", () => {
  it("lists policies with their rules and accounts, and which rule decided each recent signing", async () => {
    const policy = await call(sandbox, "POST", `${P}/policy-engine/policies`, {
      body: {
        scope: "account",
        description: "no secrets",
        rules: [
          { action: "reject", operation: "signEvmMessage", criteria: [{ type: "evmMessage", match: "secret" }] },
          { action: "accept", operation: "signEvmMessage", criteria: [{ type: "evmMessage", match: "." }] },
        ],
      },
    });
    expect(policy.status, policy.text).toBe(201);
    const address = await newEvmAccount("policed");
    const attached = await call(sandbox, "PUT", `${P}/evm/accounts/${address}`, { body: { accountPolicy: policy.body.id }, wallet: true });
    expect(attached.status, attached.text).toBe(200);
    const sign = (message: string) => call(sandbox, "POST", `${P}/evm/accounts/${address}/sign/message`, { body: { message }, wallet: true });
    expect((await sign("hello")).status).toBe(200);
    const refused = await sign("my secret");
    expect(refused.body.errorType).toBe("policy_violation");

    const res = await admin("get", "/policies");
    expect(res.status).toBe(200);
    expect(res.body.policies).toContainEqual(
      expect.objectContaining({ policyId: policy.body.id, scope: "account", description: "no secrets", accounts: [address], rules: policy.body.rules }),
    );
    const [last, previous] = res.body.decisions;
    expect(last).toMatchObject({ correlationId: refused.body.correlationId, status: refused.status, errorType: "policy_violation" });
    expect(last.decisions).toEqual([{ policyId: policy.body.id, scope: "account", operation: "signEvmMessage", rule: 1, action: "reject" }]);
    expect(previous.decisions).toEqual([{ policyId: policy.body.id, scope: "account", operation: "signEvmMessage", rule: 2, action: "accept" }]);
  });
});

describe("the explorer", () => {
  let from: string;
  let nativeHash: string;
  let tokenHash: string;
  beforeAll(async () => {
    from = await newEvmAccount("explorer-api");
    await fund(sandbox, { network: "base-sepolia", address: from, amount: "1000000000000000" });
    await fund(sandbox, { network: "base-sepolia", address: from, token: "USDC", amount: "5000000" });
    nativeHash = await send(from, serializeTransaction({ type: "eip1559", chainId: 84532, to: TO, value: 1000n }));
    const data = encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [TO, 1_500_000n] });
    tokenHash = await send(from, serializeTransaction({ type: "eip1559", chainId: 84532, to: USDC_BASE_SEPOLIA, data }));
  });

  it("lists blocks newest first with their decoded transactions, and pages back with before", async () => {
    const res = await admin("get", "/chain/blocks?network=base-sepolia");
    expect(res.status).toBe(200);
    expect(res.body.network).toBe("base-sepolia");
    const txs = res.body.blocks.flatMap((b: { transactions: unknown[] }) => b.transactions);
    expect(txs.slice(0, 2)).toMatchObject([
      {
        hash: tokenHash,
        kind: "token-transfer",
        summary: `Sent 1.5 USDC to ${TO}`,
        status: "success",
        tokenTransfers: [{ token: "USDC", from, to: TO, amount: "1500000", formatted: "1.5" }],
      },
      { hash: nativeHash, kind: "native-transfer", summary: `Sent 0.000000000000001 ETH to ${TO}`, from, to: TO, value: "1000" },
    ]);
    const numbers = res.body.blocks.map((b: { number: number }) => b.number);
    expect(numbers).toEqual([...numbers].sort((a, b) => b - a));
    const older = await admin("get", `/chain/blocks?network=base-sepolia&before=${numbers[0]}`);
    expect(older.body.blocks.every((b: { number: number }) => b.number < numbers[0])).toBe(true);
  });

  it("lists an address's transactions, reads one transaction with its logs, and tells what an address is", async () => {
    const page = await admin("get", `/chain/transactions?address=${TO.toLowerCase()}&limit=10`);
    expect(page.body.items.map((t: { hash: string }) => t.hash)).toEqual(expect.arrayContaining([tokenHash, nativeHash]));
    const tx = await admin("get", `/chain/transactions/${tokenHash}`);
    expect(tx.status).toBe(200);
    expect(tx.body).toMatchObject({
      hash: tokenHash,
      kind: "token-transfer",
      nonce: 1,
      logs: [{ event: "Transfer", args: { from, to: TO, value: "1500000" } }],
    });
    const address = await admin("get", `/chain/addresses/${from.toLowerCase()}`);
    expect(address.body).toMatchObject({ address: from, labels: ["EVM account 'explorer-api'"], totalTransactions: 2 });
    expect(address.body.balances).toContainEqual(expect.objectContaining({ token: "USDC", formatted: "3.5" }));
    const token = await admin("get", `/chain/addresses/${USDC_BASE_SEPOLIA}`);
    expect(token.body.labels).toContain("USDC on base-sepolia");
  });

  it("lists a Solana faucet payout under the wallet it paid, though the faucet's wallet paid the fee", async () => {
    const wallet = (await call(sandbox, "POST", `${P}/solana/accounts`, { body: {}, wallet: true })).body.address as string;
    const paid = await call(sandbox, "POST", `${P}/solana/faucet`, { body: { address: wallet, token: "usdc" } });
    expect(paid.status).toBe(200);
    const page = await admin("get", `/chain/transactions?address=${wallet}&limit=10`);
    expect(page.body.items.map((t: { hash: string }) => t.hash)).toEqual([paid.body.transactionSignature]);
  });

  it("decodes a user operation: the smart account, its calls, and what it moved", async () => {
    const owner = await newEvmAccount("uo-owner");
    const smart = (await call(sandbox, "POST", `${P}/evm/smart-accounts`, { body: { owners: [owner] } })).body.address as string;
    await fund(sandbox, { network: "base-sepolia", address: smart, amount: "1000000000000000" });
    const sent = await call(sandbox, "POST", `${P}/evm/smart-accounts/${smart}/user-operations/prepare-and-send`, {
      body: { network: "base-sepolia", calls: [{ to: TO, value: "10", data: "0x" }], useCdpPaymaster: true },
      wallet: true,
    });
    expect(sent.status, sent.text).toBe(200);
    const op = (await call(sandbox, "GET", `${P}/evm/smart-accounts/${smart}/user-operations/${sent.body.userOpHash}`)).body;
    const tx = await admin("get", `/chain/transactions/${op.transactionHash}`);
    expect(tx.status).toBe(200);
    expect(tx.body).toMatchObject({
      kind: "user-operation",
      userOpHash: sent.body.userOpHash,
      userOperation: { userOpHash: sent.body.userOpHash, smartAccount: smart, status: "success", calls: [{ to: TO, value: "10", data: "0x" }] },
    });
    expect(tx.body.summary).toMatch(/^User operation of 0x/);
  });

  it("decodes an x402 settlement: who paid whom, and the USDC it moved", async () => {
    const payer = privateKeyToAccount(generatePrivateKey());
    await fund(sandbox, { network: "base-sepolia", address: payer.address, token: "USDC", amount: "1000000" });
    const merchant = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed";
    const requirements = v2Requirements(merchant, "25000");
    const payload = await signAuthorization(payer, { to: merchant, value: "25000", nowSeconds: Math.floor(sandbox.clock.now() / 1000) });
    const settled = await call(sandbox, "POST", `${P}/x402/settle`, { body: v2Body(requirements, payload) });
    expect(settled.status, settled.text).toBe(200);
    const tx = await admin("get", `/chain/transactions/${settled.body.transaction}`);
    expect(tx.status).toBe(200);
    expect(tx.body).toMatchObject({
      kind: "x402-settlement",
      summary: `x402 payment of 0.025 USDC from ${payer.address.slice(0, 8)}…${payer.address.slice(-4)} to ${merchant.slice(0, 8)}…${merchant.slice(-4)}`,
      x402: { payer: payer.address, payTo: merchant, amount: "25000" },
      tokenTransfers: [{ token: "USDC", from: payer.address, to: merchant, formatted: "0.025" }],
    });
  });

  it("decodes a swap through the sandbox's settler: what the taker gave and what came back", async () => {
    const taker = await newEvmAccount("explorer-swapper");
    await fund(sandbox, { network: "base", address: taker, amount: "1000000000000000000" });
    const ETH = "0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE";
    const USDC_BASE = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913";
    const quote = await call(sandbox, "POST", `${P}/evm/swaps`, {
      body: { network: "base", taker, fromToken: ETH, toToken: USDC_BASE, fromAmount: "1000000000000000" },
    });
    expect(quote.status, quote.text).toBe(201);
    const q = quote.body.transaction;
    const transaction = serializeTransaction({ to: q.to, data: q.data, gas: BigInt(q.gas), value: BigInt(q.value), chainId: 1, type: "eip1559" });
    const sent = await call(sandbox, "POST", `${P}/evm/accounts/${taker}/send/transaction`, { body: { network: "base", transaction }, wallet: true });
    expect(sent.status, sent.text).toBe(200);
    sandbox.clock.advance(4000);
    const tx = await admin("get", `/chain/transactions/${sent.body.transactionHash}?network=base`);
    expect(tx.status, tx.text).toBe(200);
    expect(tx.body).toMatchObject({
      kind: "swap",
      summary: "Swapped 0.001 ETH for 2.997 USDC",
      tokenTransfers: expect.arrayContaining([expect.objectContaining({ token: "USDC", to: taker, formatted: "2.997" })]),
    });
  });

  it("refuses an unknown network, hash or malformed address with the error body", async () => {
    expectRefused(await admin("get", "/chain/blocks?network=dogechain"), 400, "invalid_request");
    expectRefused(await admin("get", "/chain/blocks?before=-3"), 400, "invalid_request");
    expectRefused(await admin("get", `/chain/transactions/0x${"ab".repeat(32)}`), 404, "not_found");
    expectRefused(await admin("get", "/chain/addresses/not-an-address"), 404, "not_found");
  });
});

describe("transfers and onramp orders", () => {
  it("shows each transfer's state and timeline on the sandbox clock, settling due work first", async () => {
    const a = await openAccount(sandbox, { name: "TA" });
    const b = await openAccount(sandbox, { name: "TB" });
    await fundAccount(sandbox, a, "usdc", "100");
    const body = (execute: boolean) => ({
      source: { accountId: a, asset: "usdc" },
      target: { accountId: b, asset: "usdc" },
      amount: "5",
      asset: "usdc",
      execute,
    });
    const quoted = (await call(sandbox, "POST", `${P}/transfers`, { body: body(false) })).body;
    const moving = (await call(sandbox, "POST", `${P}/transfers`, { body: body(true) })).body;
    const find = async (id: string) =>
      (await admin("get", "/transfers")).body.items.find((i: { transfer: { transferId: string } }) => i.transfer.transferId === id);
    expect(await find(quoted.transferId)).toMatchObject({
      state: "quoted",
      timeline: [
        { state: "quoted", reached: true },
        { state: "expired", reached: false },
      ],
    });
    const before = await find(moving.transferId);
    expect(before.state).toBe("processing");
    expect(before.timeline.at(-1)).toMatchObject({ state: "completed", reached: false });
    sandbox.clock.advance(20 * 60_000);
    expect((await find(quoted.transferId)).state).toBe("expired");
    const after = await find(moving.transferId);
    expect(after).toMatchObject({ state: "completed", transfer: { status: "completed" } });
    expect(after.timeline.map((s: { state: string; reached: boolean }) => [s.state, s.reached])).toEqual([
      ["quoted", true],
      ["processing", true],
      ["completed", true],
    ]);
  });

  it("lists onramp orders (none yet) and refuses a bad page", async () => {
    const res = await admin("get", "/onramp-orders");
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ total: expect.any(Number), offset: 0, items: expect.any(Array) });
    expectRefused(await admin("get", "/onramp-orders?limit=abc"), 400, "invalid_request");
  });
});

describe("webhooks", () => {
  it("lists subscriptions with their tallies; replays a delivery as one more attempt of the same event", async () => {
    const sub = await subscribe(sandbox, receiver, ["onramp.transaction.success"]);
    const test = await call(sandbox, "POST", `/_sandbox/webhooks/${sub.subscriptionId}/test`, { body: { data: { orderId: "o-api" } }, anonymous: true });
    expect(test.status).toBe(200);
    await flush(sandbox);
    const listed = (await admin("get", "/webhooks/subscriptions")).body.subscriptions.find(
      (s: { subscriptionId: string }) => s.subscriptionId === sub.subscriptionId,
    );
    expect(listed).toMatchObject({
      eventTypes: ["onramp.transaction.success"],
      isEnabled: true,
      deliveries: { total: 1, succeeded: 1, failed: 0, retrying: 0, pending: 0 },
    });

    const replayed = await admin("post", `/webhooks/${sub.subscriptionId}/events/${test.body.eventId}/replay`);
    expect(replayed.status, replayed.text).toBe(200);
    expect(replayed.body).toMatchObject({ subscriptionId: sub.subscriptionId, eventId: test.body.eventId, status: "succeeded", payload: { orderId: "o-api" } });
    expect(replayed.body.attempts).toHaveLength(2);
    const got = receiver.received(sub.path);
    expect(got).toHaveLength(2);
    expect(got[1]!.rawBody).toBe(got[0]!.rawBody);
    expect(got[1]!.headers["x-event-id"]).toBe(test.body.eventId);
    // Each attempt keeps the headers it sent, its own signature included.
    expect(replayed.body.attempts.map((a: { headers: Record<string, string> }) => a.headers["X-Hook0-Signature"])).toEqual(
      got.map((r) => r.headers["x-hook0-signature"]),
    );
    const limited = await admin("get", "/webhooks/deliveries?limit=1");
    expect(limited.body.deliveries).toHaveLength(1);
  });

  it("refuses to replay an unknown event (404) or a disabled subscription's delivery (400), sending nothing", async () => {
    const sub = await subscribe(sandbox, receiver, ["onramp.transaction.success"]);
    const test = await call(sandbox, "POST", `/_sandbox/webhooks/${sub.subscriptionId}/test`, { body: { data: { orderId: "o-off" } }, anonymous: true });
    expectRefused(await admin("post", `/webhooks/${sub.subscriptionId}/events/no-such-event/replay`), 404, "not_found");
    expectRefused(await admin("post", `/webhooks/no-such-subscription/events/${test.body.eventId}/replay`), 404, "not_found");
    const disabled = await call(sandbox, "PUT", `${P}/data/webhooks/subscriptions/${sub.subscriptionId}`, {
      body: { eventTypes: ["onramp.transaction.success"], isEnabled: false, target: { url: receiver.url(sub.path) } },
    });
    expect(disabled.status, disabled.text).toBe(200);
    expectRefused(await admin("post", `/webhooks/${sub.subscriptionId}/events/${test.body.eventId}/replay`), 400, "invalid_request");
    expect(receiver.received(sub.path)).toHaveLength(1);
    const delivery = (await admin("get", `/webhooks/deliveries?subscriptionId=${sub.subscriptionId}`)).body.deliveries[0];
    expect(delivery.attempts).toHaveLength(1);
  });
});

describe("the request journal", () => {
  it("reads what came after a sequence number, filters by status, operation and text, and opens one request", async () => {
    const start = (await admin("get", "/requests?limit=1")).body.lastSequence as number;
    const bad = await call(sandbox, "POST", `${P}/evm/accounts`, { body: { name: "bad name!" }, wallet: true });
    expect(bad.status).toBe(400);
    await newEvmAccount("journal-good");
    const after = await admin("get", `/requests?after=${start}`);
    expect(after.body.requests.map((r: { operationId: string; status: number }) => [r.operationId, r.status])).toEqual([
      ["createEvmAccount", 400],
      ["createEvmAccount", 201],
    ]);
    expect(after.body.lastSequence).toBe(after.body.requests[1].sequence);
    const errors = await admin("get", `/requests?after=${start}&status=4xx&operationId=createEvmAccount`);
    expect(errors.body.requests).toHaveLength(1);
    expect(errors.body.requests[0].problems[0].location).toBe("body.name");
    const text = await admin("get", `/requests?after=${start}&q=${encodeURIComponent("must match pattern")}`);
    expect(text.body.total).toBe(1);

    const one = await admin("get", `/requests/${bad.body.correlationId}`);
    expect(one.status).toBe(200);
    expect(one.body.entry.correlationId).toBe(bad.body.correlationId);
    expect(JSON.parse(one.body.request.body)).toEqual({ name: "bad name!" });
    expect(one.body.request.headers.authorization).toMatch(/^Bearer [\w-]+\.[\w-]+\.<signature removed>$/);
    expect(one.body.response).toMatchObject({ status: 400 });
    expect(JSON.parse(one.body.response.body).errorType).toBe("invalid_request");
  });

  it("keeps a long request body and a long response cut at 16,384 characters, and says so", async () => {
    // A list of 100 accounts answers more than 16 KB; the request names one account 40,000 characters long.
    for (let i = 0; i < 100; i++) await newEvmAccount(`journal-long-${i}`);
    const list = await call(sandbox, "GET", `${P}/evm/accounts?pageSize=100`);
    const shown = await admin("get", `/requests/${list.headers["x-correlation-id"]}`);
    expect(shown.body.response).toMatchObject({ status: 200, truncated: true });
    expect(shown.body.response.body).toHaveLength(16_384);
    const long = await call(sandbox, "POST", `${P}/evm/accounts`, { body: { name: "é".repeat(40_000) }, wallet: true });
    expect(long.status).toBe(400);
    const request = (await admin("get", `/requests/${long.body.correlationId}`)).body.request;
    expect(request).toMatchObject({ truncated: true });
    expect(request.body).toBe(`{"name":"${"é".repeat(16_384 - 9)}`);
  });

  it("refuses a malformed status filter and an unknown request", async () => {
    expectRefused(await admin("get", "/requests?status=teapot"), 400, "invalid_request");
    expectRefused(await admin("get", "/requests?after=-1"), 400, "invalid_request");
    expectRefused(await admin("get", "/requests/no-such-request"), 404, "not_found");
  });
});

describe("the dashboard's page and files", () => {
  it("serves the page at /_sandbox/ui/ and /_sandbox/ui with a strict Content-Security-Policy, and its script and style sheet", async () => {
    for (const path of ["/_sandbox/ui/", "/_sandbox/ui"]) {
      const page = await request(sandbox.url).get(path);
      expect(page.status).toBe(200);
      expect(page.headers["content-type"]).toBe("text/html; charset=utf-8");
      expect(page.headers["content-security-policy"]).toContain("default-src 'none'");
      expect(page.headers["content-security-policy"]).toContain("frame-ancestors 'none'");
      expect(page.text).toContain('<script type="module" src="/_sandbox/ui/app.js">');
    }
    const script = await request(sandbox.url).get("/_sandbox/ui/app.js");
    expect(script.headers["content-type"]).toBe("text/javascript; charset=utf-8");
    expect(script.text).toContain("/_sandbox");
    expect(script.text).not.toMatch(/https?:\/\/(?!127\.0\.0\.1)[a-z]/i);
    const style = await request(sandbox.url).get("/_sandbox/ui/app.css");
    expect(style.headers["content-type"]).toBe("text/css; charset=utf-8");
    expect(style.text).toContain("system-ui");
    expectRefused(await request(sandbox.url).get("/_sandbox/ui/secrets.txt"), 400, "invalid_request");
  });
});

describe("protection", () => {
  it("refuses the dashboard's reads and its replay from another site's page (Origin), changing nothing", async () => {
    const evil = { Origin: "https://evil.example" };
    expectRefused(await admin("get", "/accounts", { headers: evil }), 403, "forbidden");
    expectRefused(await admin("get", "/requests", { headers: evil }), 403, "forbidden");
    expectRefused(await admin("get", "/ui/", { headers: evil }), 403, "forbidden");
    const sub = await subscribe(sandbox, receiver, ["onramp.transaction.success"]);
    const test = await call(sandbox, "POST", `/_sandbox/webhooks/${sub.subscriptionId}/test`, { body: { data: { orderId: "o-evil" } }, anonymous: true });
    expectRefused(await admin("post", `/webhooks/${sub.subscriptionId}/events/${test.body.eventId}/replay`, { headers: evil }), 403, "forbidden");
    expect(receiver.received(sub.path)).toHaveLength(1);
    // The sandbox's own origin (the dashboard's page) is welcome.
    expect((await admin("get", "/accounts", { headers: { Origin: new URL(sandbox.url).origin } })).status).toBe(200);
  });

  it("with an admin token in force, serves the page without it but answers the data only with it", async () => {
    const guarded = await withSandbox({ seed: "dashboard-token", adminToken: "dashboard-token-123" });
    try {
      expect((await request(guarded.url).get("/_sandbox/ui/")).status).toBe(200);
      expect((await request(guarded.url).get("/_sandbox/ui/app.js")).status).toBe(200);
      expectRefused(await request(guarded.url).get("/_sandbox/overview"), 401, "unauthorized");
      expectRefused(await request(guarded.url).get("/_sandbox/requests/x").set("X-Sandbox-Admin-Token", "wrong"), 401, "unauthorized");
      expect((await request(guarded.url).get("/_sandbox/overview").set("X-Sandbox-Admin-Token", "dashboard-token-123")).status).toBe(200);
    } finally {
      await guarded.close();
    }
  });
});
