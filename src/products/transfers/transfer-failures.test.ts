/**
 * How processing transfers end: each failure reason of the platform,
 * reached from a documented input, with the hold released; and onchain
 * payouts completing on the project's simulated ledger, where the token
 * balance APIs and the node see them once the sandbox clock has moved.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "cdp-sandbox";
import { call, withSandbox } from "#test/helpers/sandbox.js";
import { advance, balanceOf, fundAccount, openAccount, P } from "#test/helpers/money.js";

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await withSandbox({ seed: "transfer-failures", validateResponses: true });
  await call(sandbox, "POST", "/_sandbox/clock", { body: { freeze: true }, anonymous: true });
});
afterAll(() => sandbox.close());

const pay = (from: string, target: Record<string, unknown>, amount: string, execute = true) =>
  call(sandbox, "POST", `${P}/transfers`, {
    body: { source: { accountId: from, asset: "usdc" }, target: { asset: "usdc", ...target }, amount, asset: "usdc", execute },
  });
const get = async (id: string) => (await call(sandbox, "GET", `${P}/transfers/${id}`)).body;

async function funded(amount = "100") {
  const id = await openAccount(sandbox);
  await fundAccount(sandbox, id, "usdc", amount);
  return id;
}

describe("transfers that fail while processing", () => {
  it("fails the second of two executed quotes the balance cannot cover: Insufficient balance", async () => {
    const from = await funded("100");
    const to = await openAccount(sandbox);
    const a = (await pay(from, { accountId: to }, "60", false)).body;
    const b = (await pay(from, { accountId: to }, "60", false)).body;
    expect((await call(sandbox, "POST", `${P}/transfers/${a.transferId}/execute`)).body.status).toBe("processing");
    expect((await call(sandbox, "POST", `${P}/transfers/${b.transferId}/execute`)).body.status).toBe("processing");
    expect(await balanceOf(sandbox, from, "usdc")).toEqual({ available: "40.00", total: "100.00" });
    await advance(sandbox, "5s");
    expect(await get(a.transferId)).toMatchObject({ status: "completed" });
    const failed = await get(b.transferId);
    expect(failed).toMatchObject({ status: "failed", failureReason: "Insufficient balance to complete this transfer." });
    expect(failed.completedAt).toBeUndefined();
    expect(await balanceOf(sandbox, from, "usdc")).toEqual({ available: "40.00", total: "40.00" });
    expect(await balanceOf(sandbox, to, "usdc")).toEqual({ available: "60.00", total: "60.00" });
  });

  it("completes a transfer that could not be held if the money arrives before it settles", async () => {
    const from = await funded("100");
    const to = await openAccount(sandbox);
    const a = (await pay(from, { accountId: to }, "100", false)).body;
    const b = (await pay(from, { accountId: to }, "50", false)).body;
    await call(sandbox, "POST", `${P}/transfers/${a.transferId}/execute`);
    await call(sandbox, "POST", `${P}/transfers/${b.transferId}/execute`);
    await fundAccount(sandbox, from, "usdc", "50");
    await advance(sandbox, "5s");
    expect((await get(b.transferId)).status).toBe("completed");
    expect(await balanceOf(sandbox, from, "usdc")).toEqual({ available: "0.00", total: "0.00" });
  });

  it("fails a payout to the zero address or to a token's own contract: the recipient address is invalid, and the hold is released", async () => {
    const from = await funded("100");
    for (const address of ["0x0000000000000000000000000000000000000000", "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913"]) {
      const t = (await pay(from, { address, network: "base" }, "10")).body;
      expect(t.status).toBe("processing");
      await advance(sandbox, "30s");
      expect(await get(t.transferId)).toMatchObject({ status: "failed", failureReason: "The recipient address is invalid for the selected network." });
    }
    const sol = (await pay(from, { address: "11111111111111111111111111111111", network: "solana" }, "10")).body;
    await advance(sandbox, "30s");
    expect((await get(sol.transferId)).failureReason).toBe("The recipient address is invalid for the selected network.");
    expect(await balanceOf(sandbox, from, "usdc")).toEqual({ available: "100.00", total: "100.00" });
  });

  it("fails a payout to a sanctioned address, or one on the project's blockedAddresses: security validation", async () => {
    const from = await funded("100");
    const sanctioned = (await pay(from, { address: "0x8589427373D6D84E98730D7795D8f6f8731FDA16", network: "ethereum" }, "10")).body;
    await advance(sandbox, "3m");
    expect(await get(sanctioned.transferId)).toMatchObject({ status: "failed", failureReason: "The recipient address failed security validation checks." });

    const projectId = sandbox.credentials.projectId;
    const blocked = "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC";
    expect(
      (await call(sandbox, "PATCH", `/_sandbox/projects/${projectId}`, { body: { settings: { blockedAddresses: [blocked.toLowerCase()] } } })).status,
    ).toBe(200);
    const t = (await pay(from, { address: blocked, network: "base" }, "10")).body;
    await advance(sandbox, "30s");
    expect((await get(t.transferId)).failureReason).toBe("The recipient address failed security validation checks.");
    expect(await balanceOf(sandbox, from, "usdc")).toEqual({ available: "100.00", total: "100.00" });
  });

  it("fails a transfer to an email at a .invalid domain: Unable to send to this recipient", async () => {
    const from = await funded("100");
    const t = (await pay(from, { email: "someone@coinbase.invalid" }, "10")).body;
    await advance(sandbox, "5s");
    expect(await get(t.transferId)).toMatchObject({ status: "failed", failureReason: "Unable to send to this recipient." });
    const ok = (await pay(from, { email: "someone@example.com" }, "10")).body;
    await advance(sandbox, "5s");
    const done = await get(ok.transferId);
    expect(done.status).toBe("completed");
    expect(done.failureReason).toBeUndefined();
    expect(await balanceOf(sandbox, from, "usdc")).toEqual({ available: "90.00", total: "90.00" });
  });
});

describe("onchain payouts on the simulated ledger", () => {
  it("pays a base address in USDC once the admin clock passes 30 s, visible to the token balance API and the node", async () => {
    const from = await funded("100");
    const to = "0x90F79bf6EB2c4f870365E785982E1f101E93b906";
    const t = (await pay(from, { address: to, network: "base" }, "25")).body;
    await advance(sandbox, "29s");
    expect((await call(sandbox, "GET", `${P}/evm/token-balances/base/${to}`)).body.balances).toEqual([]);
    await advance(sandbox, "1s");
    // Only the clock moved: the token balance API does not settle transfers itself.
    const balances = (await call(sandbox, "GET", `${P}/evm/token-balances/base/${to}`)).body.balances;
    expect(balances).toEqual([
      {
        amount: { amount: "24990000", decimals: 6 },
        token: { network: "base", contractAddress: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913", symbol: "USDC", name: "USD Coin" },
      },
    ]);
    const done = await get(t.transferId);
    expect(done.status).toBe("completed");
    const [tx] = done.details.onchainTransactions;
    expect(tx.network).toBe("base");
    const token = (await call(sandbox, "GET", "/apikeys/v1/tokens/active")).body.id;
    await advance(sandbox, "4s");
    const receipt = await call(sandbox, "POST", `/rpc/v1/base/${token}`, {
      anonymous: true,
      body: { jsonrpc: "2.0", id: 1, method: "eth_getTransactionReceipt", params: [tx.transactionHash] },
    });
    expect(receipt.body.result).toMatchObject({ status: "0x1", transactionHash: tx.transactionHash });
  });

  it("pays native ETH on ethereum after 3 minutes", async () => {
    const from = await openAccount(sandbox);
    await fundAccount(sandbox, from, "eth", "1");
    const to = "0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65";
    const t = await call(sandbox, "POST", `${P}/transfers`, {
      body: {
        source: { accountId: from, asset: "eth" },
        target: { address: to, network: "ethereum", asset: "eth" },
        amount: "0.1",
        asset: "eth",
        execute: true,
      },
    });
    await advance(sandbox, "3m");
    expect((await get(t.body.transferId)).targetAmount).toBe("0.0994");
    const balances = (await call(sandbox, "GET", `${P}/evm/token-balances/ethereum/${to}`)).body.balances;
    expect(balances[0].amount).toEqual({ amount: "99400000000000000", decimals: 18 });
  });

  it("pays a Solana address in USDC, visible to the Solana token balance API", async () => {
    const from = await funded("100");
    const to = "9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM";
    const t = (await pay(from, { address: to, network: "solana" }, "10")).body;
    await advance(sandbox, "30s");
    const balances = (await call(sandbox, "GET", `${P}/solana/token-balances/solana/${to}`)).body.balances;
    expect(balances).toEqual([
      { amount: { amount: "9990000", decimals: 6 }, token: { mintAddress: "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v", symbol: "USDC", name: "USD Coin" } },
    ]);
    expect((await get(t.transferId)).details.onchainTransactions[0].transactionHash).toMatch(/^[1-9A-HJ-NP-Za-km-z]{80,90}$/);
  });

  it("completes payouts on networks the ledger does not simulate with a transaction hash only", async () => {
    const from = await funded("100");
    const t = (await pay(from, { address: "0x90F79bf6EB2c4f870365E785982E1f101E93b906", network: "arbitrum" }, "10")).body;
    await advance(sandbox, "30s");
    const done = await get(t.transferId);
    expect(done.status).toBe("completed");
    expect(done.details.onchainTransactions[0]).toMatchObject({ network: "arbitrum", transactionHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
  });
});
