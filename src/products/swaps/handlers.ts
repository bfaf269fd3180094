/**
 * EVM Swaps: an indicative price (nothing stored) and a firm quote whose
 * transaction, sent by the taker with its Permit2 signature appended, is
 * settled by the simulated chain's swap settler. Both report what would stop
 * the swap today: a missing ERC-20 allowance to Permit2 and a short balance.
 */
import { afterMfa } from "../../wallet/end-users/mfa.js";
import type { Handler, Handlers } from "../../wallet/types.js";
import { createEndUserEvmSwap, getEndUserEvmSwapPrice } from "./endUserSwaps.js";
import { firmQuote, indicativePrice } from "./quotes.js";

const getEvmSwapPrice: Handler<"getEvmSwapPrice"> = (req, ctx) => ({ status: 200, body: indicativePrice(ctx, req.query) });

const createEvmSwapQuote: Handler<"createEvmSwapQuote"> = (req, ctx) => ({ status: 201, body: firmQuote(ctx, req.body) });

/** An end user's swap moves funds: it waits for a recent MFA verification when the user enrolled (afterMfa). */
export const handlers: Handlers = { getEvmSwapPrice, createEvmSwapQuote, getEndUserEvmSwapPrice, createEndUserEvmSwap: afterMfa(createEndUserEvmSwap) };
