/** Token balances read from the project's ledger, native token first, then tokens by contract address. */
import { holdings } from "../../chain/ledger.js";
import { evmTokenByAddress, NATIVE_TOKEN_ADDRESS } from "../../chain/tokens.js";
import { SOL, solanaTokenByMint } from "../../chain/solanaLedger.js";
import { paginate } from "../shared/pagination.js";
import type { Handler, HandlerMap } from "../types.js";

const listEvmTokenBalances: Handler = (req, ctx) => {
  const { network, address } = req.pathParams as { network: string; address: string };
  const rows = holdings(ctx.store, network, address)
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
  const page = paginate(rows, req.query, `balances:${network}:${address.toLowerCase()}`);
  return { status: 200, body: { balances: page.items, ...(page.nextPageToken ? { nextPageToken: page.nextPageToken } : {}) } };
};

const listSolanaTokenBalances: Handler = (req, ctx) => {
  const { network, address } = req.pathParams as { network: string; address: string };
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
const listTokensForAccount: Handler = (req, ctx) => {
  const { network, address } = req.pathParams as { network: string; address: string };
  const tokenAddresses = holdings(ctx.store, network, address)
    .filter(([asset]) => asset !== "native")
    .map(([asset]) => evmTokenByAddress(network, asset)?.address ?? asset);
  return { status: 200, body: { accountAddress: address, tokenAddresses, totalCount: tokenAddresses.length } };
};

// The Onchain Data balances operation answers from the same ledger (the official client uses it for listTokenBalances).
export const tokenBalanceHandlers: HandlerMap = {
  listEvmTokenBalances,
  listDataTokenBalances: listEvmTokenBalances,
  listTokensForAccount,
  listSolanaTokenBalances,
};
