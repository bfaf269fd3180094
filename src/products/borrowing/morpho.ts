/**
 * The Morpho Blue contract of the simulated chain, for the catalogue's
 * markets: `supplyCollateral`, `withdrawCollateral`, `borrow` and `repay`,
 * with Morpho's share accounting (debt is held as borrow shares of the
 * market, rounded in the protocol's favour) and its interest accrual (the
 * market's debt grows by e^(rate × elapsed) − 1, to three Taylor terms, on
 * every interaction at the sandbox clock's time). Tokens move on the ledger
 * between the account and the contract; the contract holds the collateral
 * and the lenders' supply. A call checks everything before it changes
 * anything, and reverts with the reason otherwise.
 *
 * Health: the collateral is priced in the loan token from the sandbox's
 * price table; a position is undercollateralized once its debt reaches the
 * collateral's value × the liquidation LTV. Nobody liquidates in the sandbox.
 */
import { decodeFunctionData, encodeFunctionData, type Hex, pad } from "viem";
import {
  allowanceOf,
  type ContractCallResult,
  type EvmTransactionInput,
  type LedgerLog,
  moveToken,
  type SandboxContract,
  setAllowance,
} from "../../chain/evm/index.js";
import { balanceOf, credit } from "../../chain/index.js";
import type { Clock } from "../../clock.js";
import { declareCollection } from "../../store/collections.js";
import type { ProjectTx } from "../../store/store.js";
import { USD_PRICE_MICROS } from "../swaps/priceTable.js";
import { type BorrowMarket, MARKET_PARAMS, type MarketParams, marketById, marketIdOf, MORPHO_ADDRESS, paramsOf } from "./catalogue.js";

const WAD = 10n ** 18n;
const ORACLE_PRICE_SCALE = 10n ** 36n;
const VIRTUAL_SHARES = 10n ** 6n;
const VIRTUAL_ASSETS = 1n;
const SECONDS_PER_YEAR = 365 * 24 * 3600;

const morphoAbi = [
  {
    type: "function",
    name: "supplyCollateral",
    stateMutability: "nonpayable",
    inputs: [MARKET_PARAMS, { name: "assets", type: "uint256" }, { name: "onBehalf", type: "address" }, { name: "data", type: "bytes" }],
    outputs: [],
  },
  {
    type: "function",
    name: "withdrawCollateral",
    stateMutability: "nonpayable",
    inputs: [MARKET_PARAMS, { name: "assets", type: "uint256" }, { name: "onBehalf", type: "address" }, { name: "receiver", type: "address" }],
    outputs: [],
  },
  {
    type: "function",
    name: "borrow",
    stateMutability: "nonpayable",
    inputs: [
      MARKET_PARAMS,
      { name: "assets", type: "uint256" },
      { name: "shares", type: "uint256" },
      { name: "onBehalf", type: "address" },
      { name: "receiver", type: "address" },
    ],
    outputs: [{ type: "uint256" }, { type: "uint256" }],
  },
  {
    type: "function",
    name: "repay",
    stateMutability: "nonpayable",
    inputs: [
      MARKET_PARAMS,
      { name: "assets", type: "uint256" },
      { name: "shares", type: "uint256" },
      { name: "onBehalf", type: "address" },
      { name: "data", type: "bytes" },
    ],
    outputs: [{ type: "uint256" }, { type: "uint256" }],
  },
] as const;

/** A market's totals, as of `lastUpdateMs`. */
export interface MarketState {
  totalSupplyAssets: bigint;
  totalBorrowAssets: bigint;
  totalBorrowShares: bigint;
  lastUpdateMs: number;
}
interface StoredMarket {
  totalSupplyAssets: string;
  totalBorrowAssets: string;
  totalBorrowShares: string;
  lastUpdateMs: number;
}
/** One account's position in one market. */
interface StoredPosition {
  network: string;
  marketId: Hex;
  account: string;
  collateral: string;
  borrowShares: string;
}

const MARKETS = declareCollection<StoredMarket>("morphoMarkets");
const POSITIONS = declareCollection<StoredPosition>("morphoPositions");
const marketKey = (m: BorrowMarket) => `${m.network}|${m.marketId}`;
const positionKey = (m: BorrowMarket, account: string) => `${m.network}|${m.marketId}|${account.toLowerCase()}`;

const mulDivDown = (x: bigint, y: bigint, d: bigint) => (x * y) / d;
const mulDivUp = (x: bigint, y: bigint, d: bigint) => (x * y + (d - 1n)) / d;
const toSharesUp = (assets: bigint, s: MarketState) => mulDivUp(assets, s.totalBorrowShares + VIRTUAL_SHARES, s.totalBorrowAssets + VIRTUAL_ASSETS);
const toSharesDown = (assets: bigint, s: MarketState) => mulDivDown(assets, s.totalBorrowShares + VIRTUAL_SHARES, s.totalBorrowAssets + VIRTUAL_ASSETS);
const toAssetsUp = (shares: bigint, s: MarketState) => mulDivUp(shares, s.totalBorrowAssets + VIRTUAL_ASSETS, s.totalBorrowShares + VIRTUAL_SHARES);

/** The market's borrow rate per second, as a WAD: ln(1 + APY) spread over a year. */
const ratePerSecondWad = (m: BorrowMarket) => BigInt(Math.round((Math.log1p(m.borrowApyBps / 10_000) / SECONDS_PER_YEAR) * 1e18));

/** Morpho's wTaylorCompounded: e^x − 1 to three terms, x a WAD. */
function taylorCompounded(x: bigint): bigint {
  const second = mulDivDown(x, x, 2n * WAD);
  const third = mulDivDown(second, x, 3n * WAD);
  return x + second + third;
}

/** The market's totals at `nowMs`, interest accrued (not stored). A market nobody has touched holds its initial supply. */
function marketAt(store: ProjectTx, m: BorrowMarket, nowMs: number): MarketState {
  const stored = store.collection(MARKETS).get(marketKey(m));
  const state: MarketState = stored
    ? {
        totalSupplyAssets: BigInt(stored.totalSupplyAssets),
        totalBorrowAssets: BigInt(stored.totalBorrowAssets),
        totalBorrowShares: BigInt(stored.totalBorrowShares),
        lastUpdateMs: stored.lastUpdateMs,
      }
    : { totalSupplyAssets: m.initialSupply, totalBorrowAssets: 0n, totalBorrowShares: 0n, lastUpdateMs: nowMs };
  const elapsedMs = BigInt(Math.max(0, nowMs - state.lastUpdateMs));
  const interest = mulDivDown(state.totalBorrowAssets, taylorCompounded((ratePerSecondWad(m) * elapsedMs) / 1000n), WAD);
  return {
    totalSupplyAssets: state.totalSupplyAssets + interest,
    totalBorrowAssets: state.totalBorrowAssets + interest,
    totalBorrowShares: state.totalBorrowShares,
    lastUpdateMs: nowMs,
  };
}

/** What a position holds and owes at `nowMs`, in smallest units. */
export interface PositionState {
  collateral: bigint;
  borrowShares: bigint;
  debt: bigint;
  market: MarketState;
}

export function positionAt(store: ProjectTx, m: BorrowMarket, account: string, nowMs: number): PositionState {
  const market = marketAt(store, m, nowMs);
  const stored = store.collection(POSITIONS).get(positionKey(m, account));
  const collateral = BigInt(stored?.collateral ?? "0");
  const borrowShares = BigInt(stored?.borrowShares ?? "0");
  return { collateral, borrowShares, debt: toAssetsUp(borrowShares, market), market };
}

/** Debt (assets, rounded up) that borrowing `assets` adds, at the market's current share price. */
export const debtOfBorrow = (assets: bigint, market: MarketState) => toAssetsUp(toSharesUp(assets, market), market);

/** The value of `collateral` in the loan token's smallest unit, at the sandbox's prices (the oracle's answer). */
function collateralValue(m: BorrowMarket, collateral: bigint): bigint {
  const price =
    (USD_PRICE_MICROS[m.collateralToken.symbol]! * ORACLE_PRICE_SCALE * 10n ** BigInt(m.loanToken.decimals)) /
    (USD_PRICE_MICROS[m.loanToken.symbol]! * 10n ** BigInt(m.collateralToken.decimals));
  return mulDivDown(collateral, price, ORACLE_PRICE_SCALE);
}

export interface Health {
  status: "no_debt" | "healthy" | "undercollateralized";
  healthFactor?: string;
  currentLtvBps?: number;
}

/** The health of a position holding `collateral` and owing `debt`. */
export function healthOf(m: BorrowMarket, collateral: bigint, debt: bigint): Health {
  if (debt === 0n) return { status: "no_debt" };
  const value = collateralValue(m, collateral);
  const maxBorrow = (value * BigInt(m.lltvBps)) / 10_000n;
  const scaled = (maxBorrow * 1_000_000n) / debt; // health factor × 10^6, rounded down
  const whole = scaled / 1_000_000n;
  const fraction = (scaled % 1_000_000n).toString().padStart(6, "0").replace(/0+$/, "");
  return {
    // At the boundary (debt = collateral value × LLTV) the position is already liquidatable.
    status: debt >= maxBorrow ? "undercollateralized" : "healthy",
    healthFactor: fraction ? `${whole}.${fraction}` : whole.toString(),
    currentLtvBps: value === 0n ? 1_000_000 : Number((debt * 20_000n + value) / (2n * value)), // to the nearest bps
  };
}

/** Calldata of the contract's functions, as the account's user operation sends them. */
export const morphoCalldata = {
  supplyCollateral: (m: BorrowMarket, assets: bigint, onBehalf: `0x${string}`) =>
    encodeFunctionData({ abi: morphoAbi, functionName: "supplyCollateral", args: [paramsOf(m), assets, onBehalf, "0x"] }),
  withdrawCollateral: (m: BorrowMarket, assets: bigint, account: `0x${string}`) =>
    encodeFunctionData({ abi: morphoAbi, functionName: "withdrawCollateral", args: [paramsOf(m), assets, account, account] }),
  borrow: (m: BorrowMarket, assets: bigint, account: `0x${string}`) =>
    encodeFunctionData({ abi: morphoAbi, functionName: "borrow", args: [paramsOf(m), assets, 0n, account, account] }),
  repay: (m: BorrowMarket, amount: { assets: bigint } | { shares: bigint }, account: `0x${string}`) =>
    encodeFunctionData({
      abi: morphoAbi,
      functionName: "repay",
      args: [paramsOf(m), "assets" in amount ? amount.assets : 0n, "shares" in amount ? amount.shares : 0n, account, "0x"],
    }),
};

type Call =
  | { functionName: "supplyCollateral"; args: readonly [MarketParams, bigint, `0x${string}`, Hex] }
  | { functionName: "withdrawCollateral"; args: readonly [MarketParams, bigint, `0x${string}`, `0x${string}`] }
  | { functionName: "borrow"; args: readonly [MarketParams, bigint, bigint, `0x${string}`, `0x${string}`] }
  | { functionName: "repay"; args: readonly [MarketParams, bigint, bigint, `0x${string}`, Hex] };

const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();
const _topic = (a: string) => pad(a.toLowerCase() as Hex, { size: 32 });

/** Executes a call to the contract inside `applyEvmTransaction` (gas already paid). */
function callMorpho(store: ProjectTx, clock: Clock, tx: EvmTransactionInput, logs: LedgerLog[]): ContractCallResult {
  const revert = (revertReason: string): ContractCallResult => ({ status: "reverted", revertReason });
  if (tx.value !== 0n) return revert("Morpho's functions are not payable");
  let call: Call;
  try {
    call = decodeFunctionData({ abi: morphoAbi, data: tx.input }) as Call;
  } catch {
    return revert("not a call this Morpho contract serves: supplyCollateral, withdrawCollateral, borrow or repay expected");
  }
  const m = marketById(tx.network, marketIdOf(call.args[0]));
  if (!m) return revert("market not created");
  const now = clock.now();
  const position = positionAt(store, m, tx.from, now);
  const market = position.market;
  let collateral = position.collateral;
  let shares = position.borrowShares;
  // Token movements, applied once every check has passed.
  const moves: Array<{ token: `0x${string}`; from: string; to: string; amount: bigint; pulled: boolean }> = [];
  const pull = (token: `0x${string}`, amount: bigint): string | undefined => {
    const allowed = allowanceOf(store, tx.network, token, tx.from, MORPHO_ADDRESS);
    if (allowed < amount) return `transferFrom reverted: allowance ${allowed} of ${token} is below ${amount}`;
    const held = balanceOf(store, tx.network, token, tx.from);
    if (held < amount) return `transferFrom reverted: ${tx.from} holds ${held} of ${token}, ${amount} needed`;
    moves.push({ token, from: tx.from, to: MORPHO_ADDRESS, amount, pulled: true });
    return undefined;
  };

  switch (call.functionName) {
    case "supplyCollateral": {
      const [, assets, onBehalf] = call.args;
      if (assets === 0n) return revert("zero assets");
      if (!same(onBehalf, tx.from)) return revert("the sandbox's Morpho takes collateral only for the caller's own position");
      const problem = pull(m.collateralToken.address, assets);
      if (problem) return revert(problem);
      collateral += assets;
      break;
    }
    case "withdrawCollateral": {
      const [, assets, onBehalf, receiver] = call.args;
      if (assets === 0n) return revert("zero assets");
      if (!same(onBehalf, tx.from)) return revert("unauthorized");
      if (assets > collateral) return revert(`the position holds ${collateral} collateral, ${assets} asked`);
      collateral -= assets;
      if (healthOf(m, collateral, position.debt).status === "undercollateralized") return revert("insufficient collateral");
      moves.push({ token: m.collateralToken.address, from: MORPHO_ADDRESS, to: receiver, amount: assets, pulled: false });
      break;
    }
    case "borrow": {
      const [, assets, askedShares, onBehalf, receiver] = call.args;
      if ((assets === 0n) === (askedShares === 0n)) return revert("inconsistent input");
      if (!same(onBehalf, tx.from)) return revert("unauthorized");
      const added = assets > 0n ? toSharesUp(assets, market) : askedShares;
      const borrowed = assets > 0n ? assets : toAssetsUp(askedShares, market);
      shares += added;
      market.totalBorrowShares += added;
      market.totalBorrowAssets += borrowed;
      if (market.totalBorrowAssets > market.totalSupplyAssets) return revert("insufficient liquidity");
      if (healthOf(m, collateral, toAssetsUp(shares, market)).status === "undercollateralized") return revert("insufficient collateral");
      moves.push({ token: m.loanToken.address, from: MORPHO_ADDRESS, to: receiver, amount: borrowed, pulled: false });
      break;
    }
    case "repay": {
      const [, assets, askedShares, onBehalf] = call.args;
      if ((assets === 0n) === (askedShares === 0n)) return revert("inconsistent input");
      const removed = assets > 0n ? toSharesDown(assets, market) : askedShares;
      const paid = assets > 0n ? assets : toAssetsUp(askedShares, market);
      if (!same(onBehalf, tx.from)) return revert("the sandbox's Morpho repays only the caller's own position");
      if (removed > shares) return revert(`the position owes ${shares} borrow shares, ${removed} repaid`);
      const problem = pull(m.loanToken.address, paid);
      if (problem) return revert(problem);
      shares -= removed;
      market.totalBorrowShares -= removed;
      market.totalBorrowAssets = market.totalBorrowAssets > paid ? market.totalBorrowAssets - paid : 0n;
      break;
    }
  }

  // Effects. A market's first interaction brings its lenders' supply onto the ledger.
  if (!store.collection(MARKETS).get(marketKey(m))) credit(store, tx.network, m.loanToken.address, MORPHO_ADDRESS, m.initialSupply);
  store.collection(MARKETS).put(marketKey(m), {
    totalSupplyAssets: market.totalSupplyAssets.toString(),
    totalBorrowAssets: market.totalBorrowAssets.toString(),
    totalBorrowShares: market.totalBorrowShares.toString(),
    lastUpdateMs: now,
  });
  store.collection(POSITIONS).put(positionKey(m, tx.from), {
    network: tx.network,
    marketId: m.marketId,
    account: tx.from.toLowerCase(),
    collateral: collateral.toString(),
    borrowShares: shares.toString(),
  });
  for (const move of moves) {
    if (move.pulled) {
      const allowed = allowanceOf(store, tx.network, move.token, move.from, MORPHO_ADDRESS);
      setAllowance(store, tx.network, move.token, move.from, MORPHO_ADDRESS, allowed - move.amount);
    }
    moveToken(store, tx.network, move.token, move.from, move.to, move.amount, logs);
  }
  return { status: "success" };
}

/** The contract as the ledger runs it. */
export const morphoBlue: SandboxContract = { address: MORPHO_ADDRESS, gasUsed: 120_000n, call: callMorpho };
