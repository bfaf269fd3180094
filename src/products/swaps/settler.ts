/**
 * The swap settler of the simulated chain: the contract a swap quote's
 * transaction calls. It settles one open quote of the project, atomically:
 * the sell token leaves the taker (ERC-20s through Permit2, with the taker's
 * signed PermitTransferFrom appended to the calldata as the official client
 * does: a 32-byte length, then the signature), and the buy token arrives from
 * the settler's liquidity pool, each with its Transfer log. Anything wrong
 * reverts the whole transaction and changes nothing but the gas paid.
 *
 * The platform's settler (0x's Settler) is redeployed from time to time, so
 * its address is not a constant anyone should rely on; the sandbox's lives at
 * SWAP_SETTLER_ADDRESS on every network. The liquidity pool is off-ledger: it
 * has no balance of its own and never runs dry below the price table's cap.
 */
import { decodeFunctionData, encodeFunctionData, hexToBigInt, size, slice, type Hex } from "viem";
import {
  allowanceOf,
  type ContractCallResult,
  type EvmTransactionInput,
  type LedgerLog,
  NATIVE_TOKEN_ADDRESS,
  PERMIT2_ADDRESS,
  type SandboxContract,
  setAllowance,
  transferLog,
} from "../../chain/evm/index.js";
import { balanceOf, credit, setBalance } from "../../chain/index.js";
import type { Clock } from "../../clock.js";
import { recoverEvmSigner } from "../../crypto/evm.js";
import { isValidSmartWalletSignature } from "../../crypto/smartWallet.js";
import type { ProjectTx } from "../../store/store.js";
import { smartWalletOwners } from "../../wallet/evm-smart-accounts/owners.js";
import { swapQuotes, type SwapQuoteRecord } from "./model.js";

export const SWAP_SETTLER_ADDRESS = "0xD759B42e707Dba26bB99f64492671f66773d775C" as const;
/** The counterparty of every swap in Transfer logs. */
export const SWAP_LIQUIDITY_POOL = "0x743B1b4772c74fbD16803f6a47FdC59688572e48" as const;
/** Gas limit a quote asks for, and gas a settlement burns. */
export const SWAP_GAS_LIMIT = 200_000n;
const SWAP_GAS_USED = 150_000n;

const settlerAbi = [
  {
    type: "function",
    name: "swap",
    stateMutability: "payable",
    inputs: [
      { name: "quoteId", type: "bytes32" },
      { name: "taker", type: "address" },
      { name: "sellToken", type: "address" },
      { name: "sellAmount", type: "uint256" },
      { name: "buyToken", type: "address" },
      { name: "buyAmount", type: "uint256" },
      { name: "minBuyAmount", type: "uint256" },
      { name: "permitNonce", type: "uint256" },
      { name: "deadline", type: "uint256" },
    ],
    outputs: [],
  },
] as const;
/** Selector plus nine static words: where an appended Permit2 signature starts. */
const CALL_SIZE = 4 + 9 * 32;

const isNative = (token: string) => token.toLowerCase() === NATIVE_TOKEN_ADDRESS.toLowerCase();
const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/** The calldata of the transaction that settles `quote` (before any Permit2 signature is appended). */
export function swapCalldata(q: SwapQuoteRecord): Hex {
  return encodeFunctionData({
    abi: settlerAbi,
    functionName: "swap",
    args: [
      q.quoteId,
      q.taker,
      q.fromToken,
      BigInt(q.fromAmount),
      q.toToken,
      BigInt(q.toAmount),
      BigInt(q.minToAmount),
      BigInt(q.permitNonce ?? "0"),
      BigInt(q.deadline),
    ],
  });
}

/**
 * Executes a call to the settler inside `applyEvmTransaction` (gas already paid).
 * Checks everything first, then moves both tokens: all or nothing.
 */
function settleSwap(store: ProjectTx, clock: Clock, tx: EvmTransactionInput, logs: LedgerLog[]): ContractCallResult {
  const revert = (revertReason: string): ContractCallResult => ({ status: "reverted", revertReason });
  if (size(tx.input) < CALL_SIZE) return revert("not a settler call: swap(bytes32,address,address,uint256,address,uint256,uint256,uint256,uint256) expected");
  let args: readonly [Hex, string, string, bigint, string, bigint, bigint, bigint, bigint];
  try {
    ({ args } = decodeFunctionData({ abi: settlerAbi, data: slice(tx.input, 0, CALL_SIZE) }));
  } catch {
    return revert("not a settler call: unknown function selector");
  }
  const [quoteId, taker, sellToken, sellAmount, buyToken, buyAmount, minBuyAmount, permitNonce, deadline] = args;
  const quote = swapQuotes(store).get(quoteId);
  if (!quote || quote.network !== tx.network) return revert(`unknown quote ${quoteId} on ${tx.network}`);
  if (quote.status === "settled") return revert(`quote ${quoteId} was already settled by ${quote.settledBy}`);
  const matches =
    same(taker, quote.taker) &&
    same(sellToken, quote.fromToken) &&
    sellAmount === BigInt(quote.fromAmount) &&
    same(buyToken, quote.toToken) &&
    buyAmount === BigInt(quote.toAmount) &&
    minBuyAmount === BigInt(quote.minToAmount) &&
    permitNonce === BigInt(quote.permitNonce ?? "0") &&
    deadline === BigInt(quote.deadline);
  if (!matches) return revert("the call's terms differ from the quote's");
  if (!same(tx.from, quote.taker)) return revert(`only the taker ${quote.taker} may settle this quote, not ${tx.from}`);
  if (Math.floor(clock.now() / 1000) > quote.deadline) return revert(`quote expired at ${new Date(quote.deadline * 1000).toISOString()}`);
  if (isNative(quote.fromToken) ? tx.value !== sellAmount : tx.value !== 0n)
    return revert(`the transaction's value must be ${isNative(quote.fromToken) ? sellAmount : 0n} wei`);
  const spender = quote.funding === "allowance" ? SWAP_SETTLER_ADDRESS : PERMIT2_ADDRESS;
  if (!isNative(quote.fromToken)) {
    const problem = quote.funding === "allowance" ? checkFunds(store, tx.network, quote, sellAmount, spender) : checkPermit(store, tx, quote, sellAmount);
    if (problem) return revert(problem);
  }
  // Effects, once everything holds.
  if (isNative(quote.fromToken)) {
    setBalance(store, tx.network, "native", tx.from, balanceOf(store, tx.network, "native", tx.from) - sellAmount);
  } else {
    setAllowance(store, tx.network, quote.fromToken, quote.taker, spender, allowanceOf(store, tx.network, quote.fromToken, quote.taker, spender) - sellAmount);
    setBalance(store, tx.network, quote.fromToken, quote.taker, balanceOf(store, tx.network, quote.fromToken, quote.taker) - sellAmount);
    logs.push(transferLog(quote.fromToken, quote.taker, SWAP_LIQUIDITY_POOL, sellAmount, logs.length));
  }
  credit(store, tx.network, isNative(quote.toToken) ? "native" : quote.toToken, quote.taker, buyAmount);
  if (!isNative(quote.toToken)) logs.push(transferLog(quote.toToken, SWAP_LIQUIDITY_POOL, quote.taker, buyAmount, logs.length));
  swapQuotes(store).put(quoteId, { ...quote, status: "settled", settledBy: tx.hash });
  return { status: "success" };
}

/** What Permit2's permitTransferFrom would revert with, or undefined when it would pass. */
function checkPermit(store: ProjectTx, tx: EvmTransactionInput, quote: SwapQuoteRecord, amount: bigint): string | undefined {
  if (size(tx.input) < CALL_SIZE + 32) return "no Permit2 signature: append its length (32 bytes) and the signature to the quote's calldata";
  const length = hexToBigInt(slice(tx.input, CALL_SIZE, CALL_SIZE + 32));
  if (length === 0n || BigInt(size(tx.input)) < BigInt(CALL_SIZE + 32) + length) return "the appended Permit2 signature is shorter than its stated length";
  const signature = slice(tx.input, CALL_SIZE + 32, CALL_SIZE + 32 + Number(length));
  const owners = smartWalletOwners(store, quote.taker);
  const valid = owners
    ? isValidSmartWalletSignature({ owners, chainId: quote.chainId, wallet: quote.taker, hash: quote.permitHash!, signature })
    : same(recoverEvmSigner(quote.permitHash!, signature) ?? "", quote.taker);
  if (!valid)
    return `Permit2: invalid signature; the PermitTransferFrom must be signed by the taker ${quote.taker}${owners ? " (ERC-1271: an owner of the smart account, wrapped)" : ""}`;
  return checkFunds(store, tx.network, quote, amount, PERMIT2_ADDRESS);
}

/** What the sell token's transferFrom would revert with (allowance to `spender`, then balance), or undefined. */
function checkFunds(store: ProjectTx, network: string, quote: SwapQuoteRecord, amount: bigint, spender: string): string | undefined {
  const allowed = allowanceOf(store, network, quote.fromToken, quote.taker, spender);
  const name = spender === PERMIT2_ADDRESS ? "Permit2" : "the settler";
  if (allowed < amount) return `TRANSFER_FROM_FAILED: the taker allows ${name} ${allowed} of ${quote.fromToken}, needs ${amount}; approve ${spender} first`;
  const held = balanceOf(store, network, quote.fromToken, quote.taker);
  if (held < amount) return `TRANSFER_FROM_FAILED: the taker holds ${held} of ${quote.fromToken}, needs ${amount}`;
  return undefined;
}

/** The settler as the ledger runs it. */
export const swapSettler: SandboxContract = { address: SWAP_SETTLER_ADDRESS, gasUsed: SWAP_GAS_USED, call: settleSwap };
