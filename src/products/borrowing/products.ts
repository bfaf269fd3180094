/** The catalogue of borrow products: listed (filtered and paged) and read one by one, with a snapshot of the head block. */
import { blockHashOf, blockTimestampOf, headBlock } from "../../chain/index.js";
import type { Schema } from "../../contract/types.js";
import { paginate } from "../../wallet/shared/pagination.js";
import type { Handler, HandlerContext } from "../../wallet/types.js";
import { BORROW_MARKETS, findMarket, productView } from "./catalogue.js";

/** The head block of `network` as the answer's snapshot: the state shown is the state at that block. */
export function snapshotOf(ctx: HandlerContext, network: string): Schema<"BorrowProductSnapshot"> {
  const now = ctx.clock.now();
  const block = headBlock(ctx.store, network, now);
  return {
    blockNumber: block,
    blockHash: blockHashOf(network, block),
    blockTimestamp: Math.floor(blockTimestampOf(network, block) / 1000),
    observedAt: new Date(now).toISOString(),
  };
}

export const listEvmBorrowProducts: Handler<"listEvmBorrowProducts"> = (req, ctx) => {
  const { network, protocol } = req.query;
  // Every product of the catalogue is a Morpho Blue market.
  const matching = BORROW_MARKETS.filter((m) => (network === undefined || m.network === network) && (protocol === undefined || protocol === "morpho_blue"));
  const page = paginate(matching, req.query, "borrow-products");
  return {
    status: 200,
    body: {
      borrowProducts: page.items.map((m) => productView(m, snapshotOf(ctx, m.network))),
      ...(page.nextPageToken ? { nextPageToken: page.nextPageToken } : {}),
    },
  };
};

export const getEvmBorrowProduct: Handler<"getEvmBorrowProduct"> = (req, ctx) => {
  const m = findMarket(req.pathParams.borrowProductId);
  return { status: 200, body: productView(m, snapshotOf(ctx, m.network)) };
};
