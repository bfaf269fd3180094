/**
 * Swaps by end users, quoted and executed in one call: from an EVM account (native ETH with no signature, USDC
 * through a Permit2 signature the sandbox makes with the user's key) and from a smart account (a user operation
 * that approves Permit2 and settles with the wallet's ERC-1271 signature). Balances are read back from the
 * sandbox's balance API once the block is mined on the sandbox clock.
 */
import { encodeFunctionData, erc20Abi, serializeTransaction } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "cdp-sandbox";
import { call, endUserSession, fund, withSandbox } from "#test/helpers/sandbox.js";

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await withSandbox({ seed: "end-user-swaps", mining: "interval" });
});
afterAll(() => sandbox.close());

const EW = "/platform/v2/embedded-wallet-api/end-users";
const ETH = "0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE";
const USDC = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913";
const WETH = "0x4200000000000000000000000000000000000006";
const PERMIT2 = "0x000000000022D473030F116dDEE9F6B43aC78BA3";
const ONE_ETH = "1000000000000000000";
let n = 0;

async function newUser() {
  const userId = `swap-${++n}`;
  const created = await call(sandbox, "POST", "/platform/v2/end-users", {
    body: { userId, authenticationMethods: [{ type: "email", email: `${userId}@example.com` }], evmAccount: { createSmartAccount: true } },
    wallet: true,
  });
  expect(created.status, created.text).toBe(201);
  const session = await endUserSession(sandbox, userId);
  return { userId, session, evm: created.body.evmAccounts[0] as `0x${string}`, smart: created.body.evmSmartAccounts[0] as `0x${string}` };
}
type User = Awaited<ReturnType<typeof newUser>>;

async function balances(holder: string): Promise<Record<string, string>> {
  const res = await call(sandbox, "GET", `/platform/v2/evm/token-balances/base/${holder}`);
  return Object.fromEntries(res.body.balances.map((b: { token: { symbol: string }; amount: { amount: string } }) => [b.token.symbol, b.amount.amount]));
}
const swap = (u: User, body: object) =>
  call(sandbox, "POST", `${EW}/${u.userId}/evm/swaps`, { body: { network: "base", toToken: WETH, ...body }, endUser: u.session });

describe("end-user swaps", () => {
  it("prices a swap for the user's account and refuses an account of another user", async () => {
    const u = await newUser();
    const other = await newUser();
    const query = (taker: string) => `network=base&fromToken=${USDC}&toToken=${WETH}&fromAmount=3000000&taker=${taker}`;
    const price = await call(sandbox, "GET", `${EW}/${u.userId}/evm/swaps/price?${query(u.evm)}`, { endUser: u.session, wallet: false });
    expect(price.status, price.text).toBe(200);
    expect(price.body).toMatchObject({ liquidityAvailable: true, network: "base", fromToken: USDC, fromAmount: "3000000", toToken: WETH });
    // The total network fee is the estimated gas cost in wei, the gas fee the price reports; the rest is the server API's price.
    expect(price.body.totalNetworkFee).toBe((BigInt(price.body.gas) * BigInt(price.body.gasPrice)).toString());
    expect(price.body.totalNetworkFee).toBe(price.body.fees.gasFee.amount);
    const server = await call(sandbox, "GET", `/platform/v2/evm/swaps/quote?${query(u.evm)}`);
    expect(server.status, server.text).toBe(200);
    // The sandbox clock runs between the two calls, so blocks may be mined in between: the block number may only move on.
    const { network, totalNetworkFee, blockNumber, ...rest } = price.body;
    const { blockNumber: serverBlock, ...serverRest } = server.body;
    expect(rest).toEqual(serverRest);
    expect(Number(serverBlock)).toBeGreaterThanOrEqual(Number(blockNumber));
    const foreign = await call(sandbox, "GET", `${EW}/${u.userId}/evm/swaps/price?${query(other.evm)}`, { endUser: u.session, wallet: false });
    expect(foreign.status).toBe(404);
  });

  it("answers only liquidityAvailable: false, without network or fee, when no route fills the swap", async () => {
    const u = await newUser();
    const q = `network=base&fromToken=${USDC}&toToken=${WETH}&fromAmount=${"9".repeat(30)}&taker=${u.evm}`;
    const price = await call(sandbox, "GET", `${EW}/${u.userId}/evm/swaps/price?${q}`, { endUser: u.session, wallet: false });
    expect(price.status, price.text).toBe(200);
    expect(price.body).toEqual({ liquidityAvailable: false });
  });

  it("sells native ETH from the user's EVM account: a transaction of the account, USDC arrives once mined", async () => {
    const u = await newUser();
    await fund(sandbox, { network: "base", address: u.evm, amount: ONE_ETH });
    const res = await swap(u, { taker: u.evm, fromToken: ETH, toToken: USDC, fromAmount: "100000000000000000" });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ userOpHash: null, network: "base", fromToken: ETH, toToken: USDC, fromAmount: "100000000000000000" });
    expect(res.body.transactionHash).toMatch(/^0x[0-9a-f]{64}$/);
    sandbox.clock.advance(4000);
    expect((await balances(u.evm)).USDC).toBe(res.body.toAmount);
  });

  it("sells USDC from the EVM account with a Permit2 signature made with the user's key, once Permit2 is approved", async () => {
    const u = await newUser();
    await fund(sandbox, { network: "base", address: u.evm, amount: ONE_ETH });
    await fund(sandbox, { network: "base", address: u.evm, token: "USDC", amount: "5000000" });
    const unapproved = await swap(u, { taker: u.evm, fromToken: USDC, fromAmount: "3000000" });
    expect([unapproved.status, unapproved.body.errorType]).toEqual([400, "invalid_request"]);
    expect(unapproved.body.errorMessage).toContain(PERMIT2);

    const approve = serializeTransaction({
      chainId: 8453,
      type: "eip1559",
      to: USDC,
      data: encodeFunctionData({ abi: erc20Abi, functionName: "approve", args: [PERMIT2, 5_000_000n] }),
    });
    const approved = await call(sandbox, "POST", `${EW}/${u.userId}/evm/send/transaction`, {
      body: { address: u.evm, network: "base", transaction: approve },
      endUser: u.session,
    });
    expect(approved.status, approved.text).toBe(200);
    sandbox.clock.advance(4000);

    const res = await swap(u, { taker: u.evm, fromToken: USDC, fromAmount: "3000000" });
    expect(res.status, res.text).toBe(200);
    sandbox.clock.advance(4000);
    const after = await balances(u.evm);
    expect(after.USDC).toBe("2000000");
    expect(after.WETH).toBe(res.body.toAmount);
  });

  it("sells USDC from the smart account in one user operation (approve, then settle with the wallet's signature)", async () => {
    const u = await newUser();
    await fund(sandbox, { network: "base", address: u.smart, token: "USDC", amount: "5000000" });
    const res = await swap(u, { taker: u.smart, fromToken: USDC, fromAmount: "3000000", useCdpPaymaster: true });
    expect(res.status, res.text).toBe(200);
    expect(res.body.transactionHash).toBeNull();
    expect(res.body.userOpHash).toMatch(/^0x[0-9a-f]{64}$/);
    sandbox.clock.advance(4000);
    const op = await call(sandbox, "GET", `${EW}/${u.userId}/evm/smart-accounts/${u.smart}/user-operations/${res.body.userOpHash}`, {
      endUser: u.session,
      wallet: false,
    });
    expect(op.body.status).toBe("complete");
    const after = await balances(u.smart);
    expect(after.USDC).toBe("2000000");
    expect(after.WETH).toBe(res.body.toAmount);
  });

  it("refuses a swap the account cannot pay for, changing nothing", async () => {
    const u = await newUser();
    const res = await swap(u, { taker: u.evm, fromToken: USDC, fromAmount: "3000000" });
    expect([res.status, res.body.errorType]).toEqual([400, "insufficient_balance"]);
    expect(await balances(u.evm)).toEqual({});
  });
});
