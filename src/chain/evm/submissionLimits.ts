/**
 * What a node refuses before a transaction runs, as geth's transaction pool refuses it: a gas limit above the
 * block's (no block could include it, and here it would let one run burn far more than a block's work), and a
 * creation whose init code exceeds EIP-3860's bound.
 */

/** The gas limit of every block the sandbox makes (what `eth_getBlockByNumber` reports). */
export const BLOCK_GAS_LIMIT = 30_000_000n;

/**
 * The gas a simulated call may use: `eth_call` and `eth_estimateGas` (their default and their cap) and a bundler's
 * estimate of a user operation's calls. A run lets the event loop go as it loops (yieldingWork.ts), but it holds its
 * project's EVM queue: 10M gas of a loop is ~0.4 s of it, and a real contract call (a token transfer ~50k, a large
 * deployment ~5M) stays far below.
 */
export const CALL_GAS_CAP = 10_000_000n;

/** EIP-3860: init code at most twice EIP-170's 24,576-byte code limit. */
const MAX_INITCODE_BYTES = 49_152;

/**
 * Why a node refuses this transaction at submission, in geth's words, or undefined if it does not.
 *
 * @example submissionRefusal({ to: null, input: "0x…", gas: 40_000_000n }) // "exceeds block gas limit"
 */
export function submissionRefusal(tx: { to: string | null; input: string; gas: bigint }): string | undefined {
  if (tx.gas > BLOCK_GAS_LIMIT) return "exceeds block gas limit";
  if (tx.to !== null) return undefined;
  const size = (tx.input.length - 2) / 2;
  return size > MAX_INITCODE_BYTES ? `max initcode size exceeded: code size ${size}, limit ${MAX_INITCODE_BYTES}` : undefined;
}

/**
 * Why a user operation is refused before it runs: the gas it may burn (its calls' gas limits, or its own gas
 * fields) adds up to more than a block holds, as a bundler refuses an operation no bundle could include.
 *
 * @example userOperationGasRefusal([200_000n, 40_000_000n]) // "gas limits adding up to 40200000 exceed …"
 */
export function userOperationGasRefusal(gasLimits: readonly bigint[]): string | undefined {
  const total = gasLimits.reduce((sum, gas) => sum + gas, 0n);
  return total > BLOCK_GAS_LIMIT ? `gas limits adding up to ${total} exceed the block gas limit of ${BLOCK_GAS_LIMIT}` : undefined;
}
