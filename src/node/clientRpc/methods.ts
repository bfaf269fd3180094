/**
 * The client-side `cdp_` methods of the node: everything `@coinbase/onchainkit` sends to its `rpcUrl`
 * (docs/client-rpc.md). `cdp_listBalances` stays with the EVM table (evm/state.ts).
 */
import { evmMethods } from "../evm/methods.js";
import type { RpcMethod } from "../jsonRpc.js";
import { cdp_createProductCharge, cdp_hydrateCharge } from "./charges.js";
import type { ClientRpcContext, EthCall } from "./context.js";
import { cdp_getMintDetails, cdp_getTokenDetails, cdp_mintToken } from "./nft.js";
import { cdp_getPriceQuote, cdp_getTokensForAddresses } from "./portfolio.js";
import { cdp_getSwapQuote, cdp_getSwapTrade, cdp_listSwapAssets } from "./swap.js";

export const clientRpcMethods: Readonly<Record<string, RpcMethod<ClientRpcContext>>> = {
  cdp_listSwapAssets,
  cdp_getSwapQuote,
  cdp_getSwapTrade,
  cdp_getTokensForAddresses,
  cdp_getPriceQuote,
  cdp_getTokenDetails,
  cdp_getMintDetails,
  cdp_mintToken,
  cdp_createProductCharge,
  cdp_hydrateCharge,
};

/** The node's own eth_call, taken from the EVM table by name: whichever file implements it, however it runs contracts. */
export const nodeEthCall: EthCall = (ctx, to, data) => evmMethods.eth_call!([{ to, data }, "latest"], ctx);
