/** Token balances read from the project's ledger, native token first, then tokens by contract address. */
import { evmTokenByAddress, NATIVE_TOKEN_ADDRESS } from "../../chain/evm/index.js";
import { holdings } from "../../chain/index.js";
import { SOL, solanaTokenByMint } from "../../chain/solana/index.js";
import type { Schema } from "../../contract/types.js";
import type { ProjectTx } from "../../store/store.js";
import { type PageQuery, paginate } from "../../wallet/shared/pagination.js";
import type { Handler, Handlers } from "../../wallet/types.js";

function evmTokenBalances(store: ProjectTx, path: { network: string; address: string }, query: PageQuery): Schema<"TokenBalancesPage"> {
  const { address } = path;
  // The contract's enum of balance networks is checked on the path before a handler runs.
  const network = path.network as Schema<"ListEvmTokenBalancesNetwork">;
  const rows = holdings(store, network, address)
    .map(([asset, amount]) => {
      const contract = asset === "native" ? NATIVE_TOKEN_ADDRESS : asset;
      const token = evmTokenByAddress(network, contract);
      return {
        amount: { amount: amount.toString(), decimals: token?.decimals ?? 18 },
        token: { network, contractAddress: token?.address ?? contract, ...(token ? { symbol: token.symbol, name: token.name } : {}) },
      };
    })
    .sort((a, b) =>
      a.token.contractAddress === NATIVE_TOKEN_ADDRESS
        ? -1
        : b.token.contractAddress === NATIVE_TOKEN_ADDRESS
          ? 1
          : a.token.contractAddress.localeCompare(b.token.contractAddress),
    );
  const page = paginate(rows, query, `balances:${network}:${address.toLowerCase()}`);
  return { balances: page.items, ...(page.nextPageToken ? { nextPageToken: page.nextPageToken } : {}) };
}

const listEvmTokenBalances: Handler<"listEvmTokenBalances"> = (req, ctx) => ({ status: 200, body: evmTokenBalances(ctx.store, req.pathParams, req.query) });

// The Onchain Data balances operation answers from the same ledger (the official client uses it for listTokenBalances).
const listDataTokenBalances: Handler<"listDataTokenBalances"> = (req, ctx) => ({ status: 200, body: evmTokenBalances(ctx.store, req.pathParams, req.query) });

const listSolanaTokenBalances: Handler<"listSolanaTokenBalances"> = (req, ctx) => {
  const { network, address } = req.pathParams;
  const rows = holdings(ctx.store, network, address)
    .map(([asset, amount]) => {
      const token = asset === "native" ? SOL : solanaTokenByMint(network, asset);
      return {
        amount: { amount: amount.toString(), decimals: token?.decimals ?? 0 },
        token: { mintAddress: token?.mint ?? asset, ...(token ? { symbol: token.symbol, name: token.name } : {}) },
      };
    })
    .sort((a, b) => (a.token.mintAddress === SOL.mint ? -1 : b.token.mintAddress === SOL.mint ? 1 : a.token.mintAddress.localeCompare(b.token.mintAddress)));
  const page = paginate(rows, req.query, `solana-balances:${network}:${address}`);
  return { status: 200, body: { balances: page.items, ...(page.nextPageToken ? { nextPageToken: page.nextPageToken } : {}) } };
};

/** Token contracts an address holds or has held on the ledger (native excluded). */
const listTokensForAccount: Handler<"listTokensForAccount"> = (req, ctx) => {
  const { network, address } = req.pathParams;
  const tokenAddresses = holdings(ctx.store, network, address)
    .filter(([asset]) => asset !== "native")
    .map(([asset]) => evmTokenByAddress(network, asset)?.address ?? asset);
  return { status: 200, body: { accountAddress: address, tokenAddresses, totalCount: tokenAddresses.length } };
};

export const handlers: Handlers = {
  listEvmTokenBalances,
  listDataTokenBalances,
  listTokensForAccount,
  listSolanaTokenBalances,
};
