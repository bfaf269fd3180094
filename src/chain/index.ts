/**
 * What both chains share, as the platform's areas see it: a holder's balance of a token on a network, read, set
 * and credited the same way whatever the chain (balances.ts: an EVM balance lives in evm/balances.ts, a Solana one
 * in solana/accounts.ts), blocks on the sandbox clock, and deliveries that land later. What is particular to one
 * chain is behind its own face: chain/evm/index.ts, chain/solana/index.ts.
 */
export { blockHashOf, blockNumberAt, blockTimestampOf } from "./blocks.js";
export { hasDueDeliveries, scheduleDelivery, settleDueDeliveries } from "./deliveries.js";
export { balanceOf, credit, holdings, setBalance } from "./balances.js";
export { headBlock, inclusionBlock, settlementBlock } from "./mining.js";
