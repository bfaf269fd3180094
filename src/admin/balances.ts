/**
 * POST /_sandbox/balances: credit an address on the project's ledger,
 * `{network, address, token?, amount}` with `token` a symbol of the token
 * table or a contract address (native when absent) and `amount` in the
 * token's smallest unit.
 */
import { balanceOf, credit } from "../chain/ledger.js";
import { evmTokenByAddress, evmTokenBySymbol, nativeTokenOf } from "../chain/tokens.js";
import { apiError } from "../errors/catalogue.js";
import type { Store } from "../store/store.js";
import { type AdminHandler, callerProject, locking } from "./types.js";
import { EVM_NETWORKS } from "../chain/networks.js";
import { SOL, SOLANA_TOKENS, solanaTokenByMint, solanaTokenBySymbol } from "../chain/solanaLedger.js";

async function creditSolana(deps: { store: Store }, projectId: string, network: string, address: unknown, token: unknown, amount: unknown) {
  if (typeof address !== "string" || !/^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(address))
    throw apiError("invalid_request", "address must be a base-58 Solana address.");
  if (typeof amount !== "string" || !/^[0-9]+$/.test(amount))
    throw apiError("invalid_request", "amount must be a string of digits in the smallest unit (lamports for SOL).");
  const asset = token === undefined ? SOL : typeof token === "string" ? (solanaTokenBySymbol(network, token) ?? solanaTokenByMint(network, token)) : undefined;
  if (!asset) throw apiError("invalid_request", `token ${String(token)} is not in the sandbox's token table for ${network}.`);
  const key = asset === SOL ? "native" : asset.mint;
  const tx = deps.store.begin(projectId);
  credit(tx, network, key, address, BigInt(amount));
  const balance = balanceOf(tx, network, key, address);
  await tx.commit();
  return { status: 200, body: { network, address, token: asset.symbol, mintAddress: asset.mint, decimals: asset.decimals, balance: balance.toString() } };
}

async function creditBalance(deps: { store: Store }, projectId: string, body: Record<string, unknown>) {
  const { network, address, token, amount } = body as { network?: unknown; address?: unknown; token?: unknown; amount?: unknown };
  if (typeof network === "string" && network in SOLANA_TOKENS) return creditSolana(deps, projectId, network, address, token, amount);
  if (typeof network !== "string" || !(network in EVM_NETWORKS)) {
    throw apiError("invalid_request", `network must be one of ${[...Object.keys(EVM_NETWORKS), ...Object.keys(SOLANA_TOKENS)].join(", ")}.`);
  }
  if (typeof address !== "string" || !/^0x[0-9a-fA-F]{40}$/.test(address))
    throw apiError("invalid_request", "address must be a 0x-prefixed 20-byte hex address.");
  if (typeof amount !== "string" || !/^[0-9]+$/.test(amount))
    throw apiError("invalid_request", 'amount must be a string of digits in the smallest unit, e.g. "1000000000000000000" for 1 ETH.');
  const asset =
    token === undefined
      ? nativeTokenOf(network)
      : typeof token === "string"
        ? (evmTokenBySymbol(network, token) ?? evmTokenByAddress(network, token))
        : undefined;
  if (!asset) throw apiError("invalid_request", `token ${String(token)} is not in the sandbox's token table for ${network}.`);
  const tx = deps.store.begin(projectId);
  credit(tx, network, asset.address, address, BigInt(amount));
  const balance = balanceOf(tx, network, asset.address, address);
  await tx.commit();
  return {
    status: 200,
    body: { network, address, token: asset.symbol, contractAddress: asset.address, decimals: asset.decimals, balance: balance.toString() },
  };
}

/** Funds on any network, mainnets included (where there is no faucet): the ledger is the sandbox's to set. */
export const creditSandboxBalance: AdminHandler<"creditSandboxBalance"> = locking("project", async (call, ctx) => {
  const credited = await creditBalance(ctx, callerProject(call, ctx), call.body);
  return { status: 200, body: credited.body };
});
