/**
 * Faucets: testnet funds credited to the project's ledger, with a
 * transaction that the node (`/rpc/v1/...`) and the balance APIs see (on
 * Solana a real one the runtime executes: solanaPayout.ts).
 * Limits per address and per project over a rolling 24 h of sandbox time
 * (table below, also in docs/chain.md) → 429 faucet_limit_exceeded.
 */
import { chainIdOf, evmTokenBySymbol, faucetPayout } from "../../chain/evm/index.js";
import { solanaTokenBySymbol } from "../../chain/solana/index.js";
import { isSolanaAddress } from "../../crypto/solana.js";
import { apiError } from "../../errors/catalogue.js";
import type { RequestBody } from "../../contract/types.js";
import { declareCollection } from "../../store/collections.js";
import type { Handler, Handlers } from "../../wallet/types.js";
import { payOutOnSolana } from "./solanaPayout.js";

const DAY_MS = 24 * 60 * 60 * 1000;

interface FaucetLimits {
  amount: bigint;
  perAddress: number;
  perProject: number;
}

/** What one claim pays and how many claims fit in 24 h, for every token the contract lets a client ask for. */
const EVM_FAUCET: Record<RequestBody<"requestEvmFaucet">["token"], FaucetLimits> = {
  eth: { amount: 100_000_000_000_000n, perAddress: 1000, perProject: 10_000 }, // 0.0001 ETH
  usdc: { amount: 1_000_000n, perAddress: 10, perProject: 100 }, // 1 USDC
  eurc: { amount: 1_000_000n, perAddress: 10, perProject: 100 }, // 1 EURC
  cbbtc: { amount: 10_000n, perAddress: 100, perProject: 1000 }, // 0.0001 cbBTC
};

interface Claim {
  id: string;
  kind: string;
  address: string;
  atMs: number;
}

const FAUCET_CLAIMS = declareCollection<Claim>("faucetClaims");

const requestEvmFaucet: Handler<"requestEvmFaucet"> = (req, ctx) => {
  const { network, token } = req.body;
  // The contract's EvmAddress pattern (checked before the handler runs) guarantees the 0x prefix.
  const address = req.body.address as `0x${string}`;
  const limits = EVM_FAUCET[token];
  const asset = evmTokenBySymbol(network, token === "eth" ? "ETH" : token);
  if (!asset)
    throw apiError("invalid_request", `The ${network} faucet does not pay ${token}; it pays ${Object.keys(EVM_FAUCET).join(", ")} where the token exists.`);
  const claims = ctx.store.collection(FAUCET_CLAIMS);
  const since = ctx.clock.now() - DAY_MS;
  const kind = `evm:${network}:${token}`;
  const recent = claims.filter((c) => c.kind === kind && c.atMs > since);
  if (recent.filter((c) => c.address === address.toLowerCase()).length >= limits.perAddress) {
    throw apiError(
      "faucet_limit_exceeded",
      `${address} has had ${limits.perAddress} ${token} claims on ${network} in the last 24 hours; that is the limit per address.`,
    );
  }
  if (recent.length >= limits.perProject)
    throw apiError("faucet_limit_exceeded", `This project has had ${limits.perProject} ${token} claims on ${network} in the last 24 hours.`);
  const tx = faucetPayout(ctx.store, ctx.clock, ctx.random, network, chainIdOf(network)!, address, asset.address, limits.amount);
  claims.put(tx.hash, { id: tx.hash, kind, address: address.toLowerCase(), atMs: ctx.clock.now() });
  return { status: 200, body: { transactionHash: tx.hash } };
};

/** The tokens the sandbox simulates on Solana devnet; the contract also names cbtusd, which is refused. */
const SOLANA_FAUCET: Partial<Record<RequestBody<"requestSolanaFaucet">["token"], FaucetLimits>> = {
  sol: { amount: 1_250_000n, perAddress: 10, perProject: 100 }, // 0.00125 SOL
  usdc: { amount: 1_000_000n, perAddress: 10, perProject: 100 }, // 1 USDC
};

/** Devnet only, like the platform's. */
const requestSolanaFaucet: Handler<"requestSolanaFaucet"> = (req, ctx) => {
  const { address, token } = req.body;
  const limits = SOLANA_FAUCET[token];
  const asset = solanaTokenBySymbol("solana-devnet", token);
  if (!limits || !asset)
    throw apiError("invalid_request", `The sandbox's Solana faucet pays ${Object.keys(SOLANA_FAUCET).join(" and ")}; ${token} is not simulated.`);
  if (!isSolanaAddress(address)) throw apiError("invalid_request", `address ${address} is not a Solana address: a base-58 encoded 32-byte public key.`);
  const claims = ctx.store.collection(FAUCET_CLAIMS);
  const since = ctx.clock.now() - DAY_MS;
  const kind = `solana:solana-devnet:${token}`;
  const recent = claims.filter((c) => c.kind === kind && c.atMs > since);
  if (recent.filter((c) => c.address === address).length >= limits.perAddress) {
    throw apiError("faucet_limit_exceeded", `${address} has had ${limits.perAddress} ${token} claims in the last 24 hours; that is the limit per address.`);
  }
  if (recent.length >= limits.perProject)
    throw apiError("faucet_limit_exceeded", `This project has had ${limits.perProject} ${token} claims in the last 24 hours.`);
  const signature = payOutOnSolana(ctx, "solana-devnet", asset, address, limits.amount);
  claims.put(signature, { id: signature, kind, address, atMs: ctx.clock.now() });
  return { status: 200, body: { transactionSignature: signature } };
};

export const handlers: Handlers = { requestEvmFaucet, requestSolanaFaucet };
