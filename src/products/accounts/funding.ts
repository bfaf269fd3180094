/**
 * Sandbox-only: set money into a custodial account
 * (POST /_sandbox/accounts/{accountId}/fund {asset, amount}), `amount` in the
 * asset's standard unit ("250.00" usdc). The platform funds accounts through
 * deposits; tests need balances without a deposit flow.
 */
import { apiError } from "../../errors/catalogue.js";
import type { ProjectTx } from "../../store/store.js";
import { custodialAsset, knownAssetList } from "../shared/custodialAssets.js";
import { toUnits } from "../shared/decimal.js";
import { balanceView, creditAccount, findAccount } from "./model.js";

export function fundAccount(store: ProjectTx, accountId: string, input: { asset?: unknown; amount?: unknown }) {
  const account = findAccount(store, accountId);
  const asset = typeof input.asset === "string" ? custodialAsset(input.asset) : undefined;
  if (!asset) throw apiError("invalid_request", `asset must be one of ${knownAssetList()}.`);
  const units = typeof input.amount === "string" ? toUnits(input.amount, asset.decimals) : undefined;
  if (units === undefined || units <= 0n)
    throw apiError("invalid_request", `amount must be a positive decimal string with at most ${asset.decimals} decimals, e.g. "100.00".`);
  creditAccount(store, account.accountId, asset.symbol, units);
  return balanceView(store, account.accountId, asset);
}
