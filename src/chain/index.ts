/**
 * The ledger both chains share, as the platform's areas see it: a holder's balance of a token on a network, read,
 * set, credited and moved the same way whatever the chain (an EVM balance lives in ledger.ts, a Solana one in
 * solana/accounts.ts), payouts, blocks on the sandbox clock, and deliveries that land later. What is particular to
 * one chain is behind its own face: chain/evm/index.ts, chain/solana/index.ts.
 */
export { blockHashOf, blockNumberAt, blockTimestampOf } from "./blocks.js";
export { hasDueDeliveries, scheduleDelivery, settleDueDeliveries } from "./deliveries.js";
export { balanceOf, credit, faucetPayout, holdings, moveToken, recordPayout, setBalance } from "./evm/ledger.js";
export { headBlock, inclusionBlock, settlementBlock } from "./mining.js";
