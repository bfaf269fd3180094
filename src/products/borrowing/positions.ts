/**
 * Borrow positions of an end user's smart account: listed with their live
 * state, and opened, adjusted and closed through one user operation of the
 * account each (ERC-20 approvals and Morpho calls, run on the ledger by the
 * sandbox's Morpho contract). Every refusal is decided here, before the
 * operation is prepared, against the same accounting the contract applies:
 * a refused request changes nothing.
 */
import { encodeFunctionData, erc20Abi, formatUnits } from "viem";
import type { EvmToken } from "../../chain/evm/index.js";
import { balanceOf } from "../../chain/index.js";
import type { Schema } from "../../contract/types.js";
import { apiError } from "../../errors/catalogue.js";
import { findEndUser } from "../../wallet/records/endUsers.js";
import { authorizeSmartAccount, sendFromSmartAccount } from "../../wallet/end-users/userOperations.js";
import { paymasterRequested } from "../../wallet/evm-smart-accounts/paymaster.js";
import type { Call } from "../../wallet/evm-smart-accounts/userOperations.js";
import { toUnits } from "../shared/decimal.js";
import { paginate } from "../../wallet/shared/pagination.js";
import type { Handler, HandlerContext, RequestFacts } from "../../wallet/types.js";
import { assetIdOf, BORROW_MARKETS, type BorrowMarket, findMarket, MORPHO_ADDRESS, tokenView } from "./catalogue.js";
import { debtOfBorrow, healthOf, morphoCalldata, positionAt, type PositionState } from "./morpho.js";
import { snapshotOf } from "./products.js";

const erc20Approve = (token: EvmToken, amount: bigint): Call => ({
  to: token.address,
  value: "0",
  data: encodeFunctionData({ abi: erc20Abi, functionName: "approve", args: [MORPHO_ADDRESS, amount] }),
});
const morphoCall = (data: `0x${string}`): Call => ({ to: MORPHO_ADDRESS, value: "0", data });

const isOpen = (p: PositionState) => p.collateral > 0n || p.borrowShares > 0n;

function positionView(ctx: HandlerContext, m: BorrowMarket, address: string, p: PositionState): Schema<"BorrowPosition"> {
  const health = healthOf(m, p.collateral, p.debt);
  const amount = (t: EvmToken, units: bigint) => ({ assetId: assetIdOf(m, t), token: tokenView(t), amount: formatUnits(units, t.decimals) });
  return {
    borrowProductId: m.productId,
    address,
    network: m.network,
    snapshot: snapshotOf(ctx, m.network),
    onchainState: {
      type: "morpho_blue",
      collateral: p.collateral > 0n ? [amount(m.collateralToken, p.collateral)] : [],
      debt: p.debt > 0n ? [{ ...amount(m.loanToken, p.debt), borrowApyBps: m.borrowApyBps }] : [],
      ...(health.healthFactor !== undefined
        ? { healthFactor: health.healthFactor, currentLtvBps: health.currentLtvBps, liquidationThresholdBps: m.lltvBps }
        : {}),
      healthStatus: health.status,
    },
  };
}

/** The smart account the request acts on, once the caller may act on it. */
function smartAccountOf(req: RequestFacts & { pathParams: { userId: string; address: string } }, ctx: HandlerContext) {
  const user = findEndUser(ctx.store, req.pathParams.userId);
  return authorizeSmartAccount(req, ctx, user, req.pathParams.address, "base");
}

/** An amount of the request in the token's smallest unit, or 400 when it is finer than the token. */
function unitsOf(field: string, text: string, t: EvmToken): bigint {
  const units = toUnits(text, t.decimals);
  if (units === undefined || units === 0n)
    throw apiError("invalid_request", `${field} ${text} is not a positive amount of ${t.symbol}, which has ${t.decimals} decimals.`);
  return units;
}

function needBalance(ctx: HandlerContext, account: string, t: EvmToken, units: bigint, what: string) {
  const held = balanceOf(ctx.store, "base", t.address, account);
  if (held < units) {
    throw apiError(
      "insufficient_balance",
      `${what} needs ${formatUnits(units, t.decimals)} ${t.symbol}; the smart account holds ${formatUnits(held, t.decimals)}.`,
    );
  }
}

function needLiquidity(m: BorrowMarket, p: PositionState, units: bigint) {
  const available = p.market.totalSupplyAssets - p.market.totalBorrowAssets;
  if (units > available) {
    throw apiError("insufficient_liquidity", `The ${m.name} market has ${formatUnits(available, m.loanToken.decimals)} ${m.loanToken.symbol} left to borrow.`);
  }
}

function needHealthyAfter(m: BorrowMarket, collateral: bigint, debt: bigint) {
  const after = healthOf(m, collateral, debt);
  if (after.status === "undercollateralized") {
    throw apiError(
      "invalid_request",
      `This change would leave the position at a loan-to-value of ${after.currentLtvBps} bps, at or above the liquidation threshold of ${m.lltvBps} bps of ${m.name}.`,
    );
  }
}

function needCapabilities(m: BorrowMarket) {
  if (!m.collateralEnabled) throw apiError("invalid_request", `${m.name} does not take new borrowing at the moment: its collateral capability is disabled.`);
  if (!m.debtEnabled) throw apiError("invalid_request", `${m.name} does not lend at the moment: its debt capability is disabled.`);
}

export const listBorrowPositionsWithEndUserAccount: Handler<"listBorrowPositionsWithEndUserAccount"> = (req, ctx) => {
  const { smart } = smartAccountOf(req, ctx);
  const now = ctx.clock.now();
  const open = BORROW_MARKETS.map((m) => ({ m, p: positionAt(ctx.store, m, smart.address, now) })).filter(({ p }) => isOpen(p));
  const page = paginate(open, req.query, `borrow-positions:${smart.address.toLowerCase()}`);
  return {
    status: 200,
    body: {
      borrowPositions: page.items.map(({ m, p }) => positionView(ctx, m, smart.address, p)),
      ...(page.nextPageToken ? { nextPageToken: page.nextPageToken } : {}),
    },
  };
};

export const createBorrowPositionWithEndUserAccount: Handler<"createBorrowPositionWithEndUserAccount"> = async (req, ctx) => {
  const found = smartAccountOf(req, ctx);
  const m = findMarket(req.body.borrowProductId);
  const sponsored = paymasterRequested(req.body);
  const account = found.smart.address;
  const collateral = unitsOf("collateralAmount", req.body.collateralAmount, m.collateralToken);
  const loan = unitsOf("loanAmount", req.body.loanAmount, m.loanToken);
  const p = positionAt(ctx.store, m, account, ctx.clock.now());
  if (isOpen(p)) throw apiError("already_exists", `Smart account ${account} already has a position in ${m.name} (${m.productId}); adjust or close it.`);
  needCapabilities(m);
  needBalance(ctx, account, m.collateralToken, collateral, "collateralAmount");
  needLiquidity(m, p, loan);
  needHealthyAfter(m, collateral, debtOfBorrow(loan, p.market));
  const calls = [
    erc20Approve(m.collateralToken, collateral),
    morphoCall(morphoCalldata.supplyCollateral(m, collateral, account)),
    morphoCall(morphoCalldata.borrow(m, loan, account)),
  ];
  return { status: 200, body: await sendFromSmartAccount(ctx, found, m.network, calls, "sendEndUserOperation", sponsored, true) };
};

export const adjustBorrowPositionWithEndUserAccount: Handler<"adjustBorrowPositionWithEndUserAccount"> = async (req, ctx) => {
  const found = smartAccountOf(req, ctx);
  const m = findMarket(req.body.borrowProductId);
  const { addCollateralAmount: add, removeCollateralAmount: remove, repayLoanAmount: repay, borrowLoanAmount: borrow } = req.body;
  if ([add, remove, repay, borrow].every((a) => a === undefined)) {
    throw apiError("invalid_request", "Give at least one of addCollateralAmount, removeCollateralAmount, repayLoanAmount and borrowLoanAmount.");
  }
  if (add !== undefined && (remove !== undefined || repay !== undefined)) {
    throw apiError("invalid_request", "addCollateralAmount cannot be combined with removeCollateralAmount or repayLoanAmount.");
  }
  if (borrow !== undefined && (repay !== undefined || remove !== undefined)) {
    throw apiError("invalid_request", "borrowLoanAmount cannot be combined with repayLoanAmount or removeCollateralAmount.");
  }
  const sponsored = paymasterRequested(req.body);
  const account = found.smart.address;
  const p = positionAt(ctx.store, m, account, ctx.clock.now());
  if (!isOpen(p)) throw apiError("not_found", `Smart account ${account} has no position in ${m.name} (${m.productId}).`);
  const calls: Call[] = [];
  let collateral = p.collateral;
  let debt = p.debt;
  if (add !== undefined) {
    const units = unitsOf("addCollateralAmount", add, m.collateralToken);
    needBalance(ctx, account, m.collateralToken, units, "addCollateralAmount");
    calls.push(erc20Approve(m.collateralToken, units), morphoCall(morphoCalldata.supplyCollateral(m, units, account)));
    collateral += units;
  }
  if (repay !== undefined) {
    const units = unitsOf("repayLoanAmount", repay, m.loanToken);
    if (units > p.debt) {
      throw apiError(
        "invalid_request",
        `repayLoanAmount ${repay} is more than the debt of ${formatUnits(p.debt, m.loanToken.decimals)} ${m.loanToken.symbol}.`,
      );
    }
    needBalance(ctx, account, m.loanToken, units, "repayLoanAmount");
    // Repaying the whole debt repays every share, so no dust of interest stays behind.
    const whole = units === p.debt;
    calls.push(erc20Approve(m.loanToken, units), morphoCall(morphoCalldata.repay(m, whole ? { shares: p.borrowShares } : { assets: units }, account)));
    debt = whole ? 0n : debt - units;
  }
  if (borrow !== undefined) {
    const units = unitsOf("borrowLoanAmount", borrow, m.loanToken);
    needCapabilities(m);
    needLiquidity(m, p, units);
    debt += debtOfBorrow(units, p.market);
    calls.push(morphoCall(morphoCalldata.borrow(m, units, account)));
  }
  if (remove !== undefined) {
    const units = unitsOf("removeCollateralAmount", remove, m.collateralToken);
    if (units > p.collateral) {
      throw apiError(
        "invalid_request",
        `removeCollateralAmount ${remove} is more than the ${formatUnits(p.collateral, m.collateralToken.decimals)} ${m.collateralToken.symbol} posted.`,
      );
    }
    collateral -= units;
    calls.push(morphoCall(morphoCalldata.withdrawCollateral(m, units, account)));
  }
  // Adding collateral or repaying alone may leave a position still undercollateralized; taking value out may not.
  if (borrow !== undefined || remove !== undefined) needHealthyAfter(m, collateral, debt);
  return { status: 200, body: await sendFromSmartAccount(ctx, found, m.network, calls, "sendEndUserOperation", sponsored, true) };
};

export const closeBorrowPositionWithEndUserAccount: Handler<"closeBorrowPositionWithEndUserAccount"> = async (req, ctx) => {
  const found = smartAccountOf(req, ctx);
  const m = findMarket(req.body.borrowProductId);
  const sponsored = paymasterRequested(req.body);
  const account = found.smart.address;
  const p = positionAt(ctx.store, m, account, ctx.clock.now());
  if (!isOpen(p)) throw apiError("not_found", `Smart account ${account} has no position in ${m.name} (${m.productId}).`);
  const calls: Call[] = [];
  if (p.borrowShares > 0n) {
    needBalance(ctx, account, m.loanToken, p.debt, "Repaying the debt with its interest");
    calls.push(erc20Approve(m.loanToken, p.debt), morphoCall(morphoCalldata.repay(m, { shares: p.borrowShares }, account)));
  }
  if (p.collateral > 0n) calls.push(morphoCall(morphoCalldata.withdrawCollateral(m, p.collateral, account)));
  return { status: 200, body: await sendFromSmartAccount(ctx, found, m.network, calls, "sendEndUserOperation", sponsored, true) };
};
