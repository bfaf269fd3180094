/**
 * Borrowing over HTTP: the catalogue of Morpho Blue products, positions of an
 * end user's smart account opened, adjusted and closed through user
 * operations that move tokens on the ledger, interest on the sandbox clock,
 * health from the price table, and every refusal leaving the state as it
 * was. Market ids and calldata are checked with viem, independently of the
 * sandbox's encoding.
 */
import type { Sandbox } from "cdp-sandbox";
import { decodeFunctionData, encodeAbiParameters, encodeFunctionData, erc20Abi, keccak256, parseAbi } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, endUserSession, fund, withSandbox, type EndUserSession } from "#test/helpers/sandbox.js";

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await withSandbox({ seed: "borrowing" });
  // Interest grows with every millisecond: the clock moves only when a test moves it.
  sandbox.clock.freeze(true);
});
afterAll(() => sandbox.close());

const EW = "/platform/v2/embedded-wallet-api";
const MORPHO = "0xBBBBBbbBBb9cC5e90e3b3Af64bdAF62C37EEFFCb";
const DAY = 86_400_000;
const BASE_USDC = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913";
const ELSEWHERE = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
const morphoAbi = parseAbi([
  "struct MarketParams { address loanToken; address collateralToken; address oracle; address irm; uint256 lltv; }",
  "function supplyCollateral(MarketParams marketParams, uint256 assets, address onBehalf, bytes data)",
  "function withdrawCollateral(MarketParams marketParams, uint256 assets, address onBehalf, address receiver)",
  "function borrow(MarketParams marketParams, uint256 assets, uint256 shares, address onBehalf, address receiver) returns (uint256, uint256)",
  "function repay(MarketParams marketParams, uint256 assets, uint256 shares, address onBehalf, bytes data) returns (uint256, uint256)",
]);

interface User {
  userId: string;
  session: EndUserSession;
  owner: string;
  smart: string;
}
let n = 0;
async function userWithSmart(funding: Record<string, string> = { cbBTC: "2000000", USDC: "0" }): Promise<User> {
  const userId = `borrower-${++n}`;
  const created = await call(sandbox, "POST", "/platform/v2/end-users", {
    body: { userId, authenticationMethods: [{ type: "email", email: `${userId}@example.com` }], evmAccount: { createSmartAccount: true } },
    wallet: true,
  });
  const smart = created.body.evmSmartAccounts[0] as string;
  for (const [token, amount] of Object.entries(funding)) {
    if (amount !== "0") await fund(sandbox, { network: "base", address: smart, amount, ...(token === "ETH" ? {} : { token }) });
  }
  return { userId, session: await endUserSession(sandbox, userId), owner: created.body.evmAccounts[0] as string, smart };
}

const products = async (query = "") => call(sandbox, "GET", `${EW}/evm/borrow-products${query}`);
async function productNamed(name: string) {
  const all = (await products()).body.borrowProducts as Array<{ name: string; borrowProductId: string }>;
  return all.find((p) => p.name === name)!.borrowProductId;
}
const positionsPath = (u: User) => `${EW}/end-users/${u.userId}/evm/smart-accounts/${u.smart}/borrow-positions`;
const positions = (u: User, query = "") => call(sandbox, "GET", `${positionsPath(u)}${query}`, { endUser: u.session });
const paymaster = { useCdpPaymaster: true };
const open = (u: User, body: object) => call(sandbox, "POST", positionsPath(u), { body: { ...paymaster, ...body }, endUser: u.session });
const adjust = (u: User, body: object) => call(sandbox, "POST", `${positionsPath(u)}/adjust`, { body: { ...paymaster, ...body }, endUser: u.session });
const close = (u: User, body: object) => call(sandbox, "POST", `${positionsPath(u)}/close`, { body: { ...paymaster, ...body }, endUser: u.session });
const userOp = (u: User, hash: string) =>
  call(sandbox, "GET", `${EW}/end-users/${u.userId}/evm/smart-accounts/${u.smart}/user-operations/${hash}`, { endUser: u.session });

/** Balances on Base by symbol, in smallest units. */
async function balances(address: string): Promise<Record<string, bigint>> {
  const res = await call(sandbox, "GET", `/platform/v2/evm/token-balances/base/${address}`);
  return Object.fromEntries(
    (res.body.balances as Array<{ token: { symbol: string }; amount: { amount: string } }>).map((b) => [b.token.symbol, BigInt(b.amount.amount)]),
  );
}

/** The one position of the account (its state without the snapshot). */
async function onlyPosition(u: User) {
  const res = await positions(u);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.borrowPositions).toHaveLength(1);
  return res.body.borrowPositions[0].onchainState;
}

/** What a refusal must leave alone: the account's positions, its balances and the contract's. */
async function stateOf(u: User) {
  const list = (await positions(u)).body.borrowPositions.map((p: { snapshot: unknown }) => ({ ...p, snapshot: undefined }));
  return { list, account: await balances(u.smart), morpho: await balances(MORPHO) };
}
async function expectRefused(
  u: User,
  request: () => Promise<{ status: number; body: { errorType?: string; errorMessage?: string } }>,
  status: number,
  errorType: string,
) {
  const before = await stateOf(u);
  const res = await request();
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body.errorType).toBe(errorType);
  expect(await stateOf(u)).toEqual(before);
  return res.body.errorMessage;
}

describe("the catalogue of borrow products", () => {
  it("lists the Morpho Blue markets on Base, filtered and paged, each with its onchain market id", async () => {
    const all = await products();
    expect(all.status).toBe(200);
    const names = all.body.borrowProducts.map((p: { name: string }) => p.name);
    expect(names).toEqual(["cbBTC/USDC", "WETH/USDC", "cbBTC/EURC", "WETH/DAI"]);
    expect(all.body.nextPageToken).toBeUndefined();
    const usdc = all.body.borrowProducts[0];
    expect(usdc).toMatchObject({
      borrowProductId: expect.stringMatching(/^bp_[a-f0-9-]{36}$/),
      network: "base",
      venue: { entrypointAddress: MORPHO, venueId: expect.stringMatching(/^bp_venue_/) },
      assets: [
        { token: { symbol: "cbBTC", decimals: 8 }, capabilities: [{ type: "collateral", enabled: true }] },
        { token: { symbol: "USDC", decimals: 6 }, capabilities: [{ type: "debt", enabled: true }] },
      ],
      protocolDetails: { type: "morpho_blue", marketParams: { lltvBps: 8600, loanToken: { symbol: "USDC" }, collateralToken: { symbol: "cbBTC" } } },
    });
    const mp = usdc.protocolDetails.marketParams;
    const id = keccak256(
      encodeAbiParameters(
        [{ type: "address" }, { type: "address" }, { type: "address" }, { type: "address" }, { type: "uint256" }],
        [mp.loanToken.address, mp.collateralToken.address, mp.oracleAddress, mp.interestRateModelAddress, BigInt(mp.lltvBps) * 10n ** 14n],
      ),
    );
    expect(mp.onchainMarketId).toBe(id);
    expect(usdc.snapshot.blockHash).toMatch(/^0x[0-9a-f]{64}$/);

    expect((await products("?network=base&protocol=morpho_blue")).body.borrowProducts).toHaveLength(4);
    expect((await products("?network=base-sepolia")).status).toBe(400);
    expect((await products("?protocol=aave")).status).toBe(400);
    const first = await products("?pageSize=3");
    expect(first.body.borrowProducts).toHaveLength(3);
    const second = await products(`?pageSize=3&pageToken=${first.body.nextPageToken}`);
    expect(second.body.borrowProducts.map((p: { name: string }) => p.name)).toEqual(["WETH/DAI"]);
    expect(second.body.nextPageToken).toBeUndefined();
    const foreign = await call(sandbox, "GET", `/platform/v2/evm/accounts?pageToken=${first.body.nextPageToken}`);
    expect(foreign.status).toBe(400);
  });

  it("reads one product by id, and answers 404 for an unknown one and 400 for a malformed one", async () => {
    const id = await productNamed("WETH/DAI");
    const one = await call(sandbox, "GET", `${EW}/evm/borrow-products/${id}`);
    expect(one.status).toBe(200);
    expect(one.body.assets[0].capabilities).toEqual([{ type: "collateral", enabled: false }]);
    const unknown = await call(sandbox, "GET", `${EW}/evm/borrow-products/bp_00000000-0000-4000-8000-000000000000`);
    expect(unknown.status).toBe(404);
    expect(unknown.body.errorType).toBe("not_found");
    expect((await call(sandbox, "GET", `${EW}/evm/borrow-products/market-1`)).status).toBe(400);
  });
});

describe("a position's life", () => {
  it("opens a position with one user operation that moves collateral in and the loan out", async () => {
    const u = await userWithSmart();
    const borrowProductId = await productNamed("cbBTC/USDC");
    const res = await open(u, { borrowProductId, collateralAmount: "0.01", loanAmount: "500" });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ network: "base", status: "broadcast", userOpHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
    const [approve, supply, borrow] = res.body.calls;
    expect(decodeFunctionData({ abi: erc20Abi, data: approve.data })).toMatchObject({ functionName: "approve", args: [MORPHO, 1_000_000n] });
    expect(decodeFunctionData({ abi: morphoAbi, data: supply.data })).toMatchObject({
      functionName: "supplyCollateral",
      args: [expect.anything(), 1_000_000n, u.smart, "0x"],
    });
    expect(decodeFunctionData({ abi: morphoAbi, data: borrow.data })).toMatchObject({
      functionName: "borrow",
      args: [expect.anything(), 500_000_000n, 0n, u.smart, u.smart],
    });
    expect(supply.to).toBe(MORPHO);

    const op = await userOp(u, res.body.userOpHash);
    expect(op.status).toBe(200);
    expect(op.body.status).toBe("complete");
    expect(op.body.receipts[0].transactionHash).toBe(op.body.transactionHash);

    const held = await balances(u.smart);
    expect(held.cbBTC).toBe(1_000_000n);
    expect(held.USDC).toBe(500_000_000n);
    expect(held.ETH ?? 0n).toBe(0n); // the paymaster paid the gas
    expect((await balances(MORPHO)).cbBTC).toBeGreaterThanOrEqual(1_000_000n);

    const list = await positions(u);
    expect(list.body.borrowPositions).toHaveLength(1);
    expect(list.body.borrowPositions[0]).toMatchObject({ borrowProductId, address: u.smart, network: "base" });
    expect(list.body.borrowPositions[0].onchainState).toEqual({
      type: "morpho_blue",
      collateral: [{ assetId: expect.stringMatching(/^bp_asset_/), token: expect.objectContaining({ symbol: "cbBTC" }), amount: "0.01" }],
      debt: [{ assetId: expect.stringMatching(/^bp_asset_/), token: expect.objectContaining({ symbol: "USDC" }), amount: "500", borrowApyBps: 525 }],
      healthFactor: "1.72",
      currentLtvBps: 5000,
      liquidationThresholdBps: 8600,
      healthStatus: "healthy",
    });
  });

  it("holds one position per product: a second open is a 409 that changes nothing", async () => {
    const u = await userWithSmart();
    const borrowProductId = await productNamed("cbBTC/USDC");
    expect((await open(u, { borrowProductId, collateralAmount: "0.005", loanAmount: "100" })).status).toBe(200);
    await expectRefused(u, () => open(u, { borrowProductId, collateralAmount: "0.005", loanAmount: "100" }), 409, "already_exists");
    // Another product is another position.
    await fund(sandbox, { network: "base", address: u.smart, token: "WETH", amount: "1000000000000000000" });
    expect((await open(u, { borrowProductId: await productNamed("WETH/USDC"), collateralAmount: "1", loanAmount: "1000" })).status).toBe(200);
    expect((await positions(u)).body.borrowPositions).toHaveLength(2);
    const page = await positions(u, "?pageSize=1");
    expect(page.body.borrowPositions).toHaveLength(1);
    expect((await positions(u, `?pageSize=1&pageToken=${page.body.nextPageToken}`)).body.borrowPositions[0].borrowProductId).not.toBe(
      page.body.borrowPositions[0].borrowProductId,
    );
  });

  it("accrues interest on the sandbox clock, and closing repays it and returns all the collateral", async () => {
    const u = await userWithSmart();
    const borrowProductId = await productNamed("cbBTC/USDC");
    expect((await open(u, { borrowProductId, collateralAmount: "0.02", loanAmount: "500" })).status).toBe(200);
    sandbox.clock.advance(365 * DAY);
    u.session = await endUserSession(sandbox, u.userId); // the old session expired meanwhile
    const debt = Number((await onlyPosition(u)).debt[0].amount);
    // 5.25 % a year, compounded: 500 × 1.0525, less the Taylor series' last sliver.
    expect(debt).toBeGreaterThan(526.24);
    expect(debt).toBeLessThan(526.26);

    // The account holds the 500 it borrowed, not the interest: closing is refused and changes nothing.
    const message = await expectRefused(u, () => close(u, { borrowProductId }), 400, "insufficient_balance");
    expect(message).toMatch(/USDC/);
    await fund(sandbox, { network: "base", address: u.smart, token: "USDC", amount: "30000000" });
    const closed = await close(u, { borrowProductId });
    expect(closed.status, JSON.stringify(closed.body)).toBe(200);
    expect(closed.body.calls.map((c: { data: string }) => c.data.slice(0, 10))).toHaveLength(3);
    expect((await userOp(u, closed.body.userOpHash)).body.status).toBe("complete");
    expect((await positions(u)).body.borrowPositions).toEqual([]);
    const held = await balances(u.smart);
    expect(held.cbBTC).toBe(2_000_000n);
    expect(held.USDC).toBe(530_000_000n - BigInt(Math.round(debt * 1e6)));
    // Closed is closed: adjust and close find nothing.
    await expectRefused(u, () => close(u, { borrowProductId }), 404, "not_found");
  });

  it("walks health from healthy to undercollateralized as interest grows, and back through collateral and repayment", async () => {
    const u = await userWithSmart();
    const borrowProductId = await productNamed("cbBTC/USDC");
    // 0.01 cbBTC is worth 1,000 USDC at the sandbox's prices; the threshold is 86 %.
    expect((await open(u, { borrowProductId, collateralAmount: "0.01", loanAmount: "850" })).status).toBe(200);
    expect(await onlyPosition(u)).toMatchObject({ healthStatus: "healthy", currentLtvBps: 8500 });
    expect(await expectRefused(u, () => adjust(u, { borrowProductId, borrowLoanAmount: "20" }), 400, "invalid_request")).toMatch(/liquidation threshold/);

    sandbox.clock.advance(90 * DAY);
    u.session = await endUserSession(sandbox, u.userId);
    const sick = await onlyPosition(u);
    expect(sick.healthStatus).toBe("undercollateralized");
    expect(Number(sick.healthFactor)).toBeLessThan(1);
    expect(sick.currentLtvBps).toBeGreaterThanOrEqual(8600);
    await expectRefused(u, () => adjust(u, { borrowProductId, borrowLoanAmount: "1" }), 400, "invalid_request");
    await expectRefused(u, () => adjust(u, { borrowProductId, removeCollateralAmount: "0.0001" }), 400, "invalid_request");

    expect((await adjust(u, { borrowProductId, addCollateralAmount: "0.001" })).status).toBe(200);
    const healed = await onlyPosition(u);
    expect(healed.healthStatus).toBe("healthy");
    expect(healed.collateral[0].amount).toBe("0.011");

    await fund(sandbox, { network: "base", address: u.smart, token: "USDC", amount: "20000000" });
    const owed = healed.debt[0].amount as string;
    expect((await adjust(u, { borrowProductId, repayLoanAmount: owed })).status).toBe(200);
    const repaid = await onlyPosition(u);
    expect(repaid).toEqual({ type: "morpho_blue", collateral: [expect.objectContaining({ amount: "0.011" })], debt: [], healthStatus: "no_debt" });

    expect((await adjust(u, { borrowProductId, removeCollateralAmount: "0.011" })).status).toBe(200);
    expect((await positions(u)).body.borrowPositions).toEqual([]);
    expect((await balances(u.smart)).cbBTC).toBe(2_000_000n);
  });

  it("combines adding collateral with borrowing, and repaying with withdrawing, in one operation each", async () => {
    const u = await userWithSmart();
    const borrowProductId = await productNamed("cbBTC/USDC");
    expect((await open(u, { borrowProductId, collateralAmount: "0.01", loanAmount: "100" })).status).toBe(200);
    const more = await adjust(u, { borrowProductId, addCollateralAmount: "0.01", borrowLoanAmount: "400" });
    expect(more.status, JSON.stringify(more.body)).toBe(200);
    expect(more.body.calls.map((c: { data: `0x${string}` }) => decodeCall(c.data))).toEqual(["approve", "supplyCollateral", "borrow"]);
    // Debt is borrow shares valued rounded up, as Morpho does: at most one unit above what was borrowed.
    const bigger = await onlyPosition(u);
    expect(bigger).toMatchObject({ collateral: [{ amount: "0.02" }], currentLtvBps: 2500 });
    expect(Number(bigger.debt[0].amount)).toBeCloseTo(500, 5);
    const less = await adjust(u, { borrowProductId, repayLoanAmount: "200", removeCollateralAmount: "0.015" });
    expect(less.status, JSON.stringify(less.body)).toBe(200);
    expect(less.body.calls.map((c: { data: `0x${string}` }) => decodeCall(c.data))).toEqual(["approve", "repay", "withdrawCollateral"]);
    const smaller = await onlyPosition(u);
    expect(smaller).toMatchObject({ collateral: [{ amount: "0.005" }], currentLtvBps: 6000 });
    expect(Number(smaller.debt[0].amount)).toBeCloseTo(300, 5);
    expect((await balances(u.smart)).USDC).toBe(300_000_000n);
  });
});

function decodeCall(data: `0x${string}`): string {
  try {
    return decodeFunctionData({ abi: morphoAbi, data }).functionName;
  } catch {
    return decodeFunctionData({ abi: erc20Abi, data }).functionName;
  }
}

describe("refusals change nothing", () => {
  it("refuses the adjust combinations the platform forbids, and an empty adjust", async () => {
    const u = await userWithSmart();
    const borrowProductId = await productNamed("cbBTC/USDC");
    expect((await open(u, { borrowProductId, collateralAmount: "0.01", loanAmount: "100" })).status).toBe(200);
    await fund(sandbox, { network: "base", address: u.smart, token: "USDC", amount: "100000000" });
    const forbidden = [
      {},
      { addCollateralAmount: "0.001", removeCollateralAmount: "0.001" },
      { addCollateralAmount: "0.001", repayLoanAmount: "1" },
      { borrowLoanAmount: "1", repayLoanAmount: "1" },
      { borrowLoanAmount: "1", removeCollateralAmount: "0.001" },
      { addCollateralAmount: "0.001", borrowLoanAmount: "1", repayLoanAmount: "1" },
    ];
    for (const amounts of forbidden) await expectRefused(u, () => adjust(u, { borrowProductId, ...amounts }), 400, "invalid_request");
  });

  it("refuses amounts beyond the position, the account or the token's decimals", async () => {
    const u = await userWithSmart();
    const borrowProductId = await productNamed("cbBTC/USDC");
    expect((await open(u, { borrowProductId, collateralAmount: "0.01", loanAmount: "100" })).status).toBe(200);
    await expectRefused(u, () => adjust(u, { borrowProductId, repayLoanAmount: "100.01" }), 400, "invalid_request");
    await expectRefused(u, () => adjust(u, { borrowProductId, removeCollateralAmount: "0.02" }), 400, "invalid_request");
    await expectRefused(u, () => adjust(u, { borrowProductId, addCollateralAmount: "1" }), 400, "insufficient_balance");
    await expectRefused(u, () => adjust(u, { borrowProductId, borrowLoanAmount: "0.0000001" }), 400, "invalid_request");
    await expectRefused(u, () => adjust(u, { borrowProductId, borrowLoanAmount: "-1" }), 400, "invalid_request");
    // Spend the loan, then repaying finds the account short.
    await call(sandbox, "POST", `${EW}/end-users/${u.userId}/evm/smart-accounts/${u.smart}/send`, {
      body: {
        network: "base",
        useCdpPaymaster: true,
        calls: [{ to: BASE_USDC, value: "0", data: encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [ELSEWHERE, 90_000_000n] }) }],
      },
      endUser: u.session,
    });
    await expectRefused(u, () => adjust(u, { borrowProductId, repayLoanAmount: "50" }), 400, "insufficient_balance");
  });

  it("refuses an unknown product, a missing position, a paused product, a contradictory paymaster and a drained market", async () => {
    const u = await userWithSmart({ cbBTC: "10000000000", WETH: "5000000000000000000" });
    const usdc = await productNamed("cbBTC/USDC");
    const unknown = "bp_00000000-0000-4000-8000-000000000000";
    await expectRefused(u, () => open(u, { borrowProductId: unknown, collateralAmount: "0.01", loanAmount: "1" }), 404, "not_found");
    await expectRefused(u, () => adjust(u, { borrowProductId: usdc, addCollateralAmount: "0.01" }), 404, "not_found");
    await expectRefused(u, () => close(u, { borrowProductId: usdc }), 404, "not_found");
    const paused = await productNamed("WETH/DAI");
    expect(await expectRefused(u, () => open(u, { borrowProductId: paused, collateralAmount: "1", loanAmount: "10" }), 400, "invalid_request")).toMatch(
      /collateral capability is disabled/,
    );
    await expectRefused(
      u,
      () => open(u, { borrowProductId: usdc, collateralAmount: "0.01", loanAmount: "1", paymasterUrl: "https://paymaster.example.com" }),
      400,
      "invalid_request",
    );
    await expectRefused(
      u,
      () => open(u, { borrowProductId: usdc, collateralAmount: "0.01", loanAmount: "1", useCdpPaymaster: false, paymasterContext: { policy: "x" } }),
      400,
      "invalid_request",
    );
    await expectRefused(u, () => open(u, { borrowProductId: usdc, collateralAmount: "0.01", loanAmount: "900" }), 400, "invalid_request");
    // 100 cbBTC would carry 8.6 M EURC of debt; the market has 2 M to lend.
    const eurc = await productNamed("cbBTC/EURC");
    await expectRefused(u, () => open(u, { borrowProductId: eurc, collateralAmount: "100", loanAmount: "2000001" }), 400, "insufficient_liquidity");
    expect((await open(u, { borrowProductId: eurc, collateralAmount: "100", loanAmount: "2000000" })).status).toBe(200);
    expect((await balances(u.smart)).EURC).toBe(2_000_000_000_000n);
  });

  it("has the smart account pay its gas without a paymaster, and refuses when it cannot", async () => {
    const u = await userWithSmart();
    const borrowProductId = await productNamed("cbBTC/USDC");
    await expectRefused(u, () => open(u, { borrowProductId, collateralAmount: "0.01", loanAmount: "10", useCdpPaymaster: false }), 400, "insufficient_balance");
    await fund(sandbox, { network: "base", address: u.smart, amount: "10000000000000000" });
    const res = await open(u, { borrowProductId, collateralAmount: "0.01", loanAmount: "10", useCdpPaymaster: false });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect((await balances(u.smart)).ETH).toBeLessThan(10_000_000_000_000_000n);
  });
});

describe("who may borrow, and the user-operation lookup", () => {
  it("lets the developer act under the end user's delegation, and no one else", async () => {
    const u = await userWithSmart();
    const other = await userWithSmart();
    const borrowProductId = await productNamed("cbBTC/USDC");
    const body = { borrowProductId, collateralAmount: "0.01", loanAmount: "10", useCdpPaymaster: true, walletSecretId: "developer" };
    const foreign = await call(sandbox, "POST", positionsPath(u), { body, endUser: other.session });
    expect(foreign.status).toBe(401);
    const noGrant = await call(sandbox, "POST", positionsPath(u), { body, wallet: true });
    expect(noGrant.status).toBe(403);
    expect(noGrant.body.errorType).toBe("delegation_not_found");
    expect((await positions(u)).body.borrowPositions).toEqual([]);
    const expiresAt = new Date(sandbox.clock.now() + 3600_000).toISOString();
    const granted = await call(sandbox, "POST", `${EW}/end-users/${u.userId}/address/${u.smart}/delegation`, { body: { expiresAt }, endUser: u.session });
    expect(granted.status).toBe(201);
    const res = await call(sandbox, "POST", positionsPath(u), { body, wallet: true });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const byDeveloper = await call(sandbox, "GET", `${EW}/end-users/${u.userId}/evm/smart-accounts/${u.smart}/user-operations/${res.body.userOpHash}`);
    expect(byDeveloper.body.status).toBe("complete");
    expect((await call(sandbox, "GET", positionsPath(u))).body.borrowPositions).toHaveLength(1);
  });

  it("answers 404 for an operation of another account or an unknown hash", async () => {
    const u = await userWithSmart();
    const other = await userWithSmart();
    const res = await open(u, { borrowProductId: await productNamed("cbBTC/USDC"), collateralAmount: "0.01", loanAmount: "10" });
    expect((await userOp(u, res.body.userOpHash)).status).toBe(200);
    expect((await userOp(other, res.body.userOpHash)).status).toBe(404);
    expect((await userOp(u, `0x${"ab".repeat(32)}`)).body.errorType).toBe("not_found");
    expect((await userOp(u, "0x1234")).status).toBe(400);
  });
});

describe("under interval mining", () => {
  it("shows the operation broadcast until its block is mined, then complete", async () => {
    const live = await withSandbox({ seed: "borrowing-interval", mining: "interval" });
    try {
      const userId = "interval-borrower";
      const created = await call(live, "POST", "/platform/v2/end-users", {
        body: { userId, authenticationMethods: [{ type: "email", email: "ib@example.com" }], evmAccount: { createSmartAccount: true } },
        wallet: true,
      });
      const smart = created.body.evmSmartAccounts[0] as string;
      await fund(live, { network: "base", address: smart, token: "cbBTC", amount: "1000000" });
      const session = await endUserSession(live, userId);
      const borrowProductId = (await call(live, "GET", `${EW}/evm/borrow-products`)).body.borrowProducts[0].borrowProductId;
      live.clock.freeze(true);
      const res = await call(live, "POST", `${EW}/end-users/${userId}/evm/smart-accounts/${smart}/borrow-positions`, {
        body: { borrowProductId, collateralAmount: "0.01", loanAmount: "100", useCdpPaymaster: true },
        endUser: session,
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const path = `${EW}/end-users/${userId}/evm/smart-accounts/${smart}/user-operations/${res.body.userOpHash}`;
      expect((await call(live, "GET", path, { endUser: session })).body.status).toBe("broadcast");
      live.clock.advance(4000);
      const done = await call(live, "GET", path, { endUser: session });
      expect(done.body.status).toBe("complete");
      expect(done.body.receipts[0].blockNumber).toBeGreaterThan(0);
    } finally {
      await live.close();
    }
  });
});
