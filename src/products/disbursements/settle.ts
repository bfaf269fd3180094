/**
 * Disbursements landing on the sandbox clock (run before every request by
 * src/products/settle.ts), stamped with the time they were due: the hold is
 * spent and the target paid — an address on the project's ledger, from the
 * platform's hot wallet; a Coinbase user inside Coinbase, so nothing onchain
 * (a simulated Coinbase user's balance is credited) — or, when nothing could be held, the
 * disbursement fails with insufficient_funds.
 */
import type { Store } from "../../store/store.js";
import { debitAccount } from "../accounts/model.js";
import { COINBASE_USER_ASSETS, creditCoinbaseUser } from "../payment-sessions/coinbaseUsers.js";
import { actionHash, payFromCustody } from "../payment-sessions/escrow.js";
import type { EmitContext } from "../../wallet/events/emit.js";
import { emitDisbursementEvent } from "./events.js";
import { DISBURSEMENTS, disbursements, payoutToken, type DisbursementRecord } from "./model.js";

export function hasDueDisbursements(store: Store, projectId: string, nowMs: number): boolean {
  return store.hasDueCommitted(projectId, DISBURSEMENTS, nowMs);
}

export function settleDueDisbursements(ctx: EmitContext, nowMs: number): void {
  for (const d of disbursements(ctx.store).dueBy(nowMs)) land(ctx, d);
}

function land(ctx: EmitContext, d: DisbursementRecord): void {
  const atMs = d.landsAtMs!;
  const iso = new Date(atMs).toISOString();
  const units = BigInt(d.units);
  let next: DisbursementRecord;
  if (!d.held) {
    const error = {
      code: "insufficient_funds",
      message: `Account ${d.source.accountId} did not have ${d.units} ${d.asset} (smallest unit) available.`,
      occurredAt: iso,
    };
    next = { ...d, status: "failed", error, updatedAt: iso };
  } else {
    debitAccount(ctx.store, d.source.accountId, d.asset, units, true);
    next = { ...d, status: "succeeded", held: false, updatedAt: iso, ...pay(ctx, d, units, atMs) };
  }
  disbursements(ctx.store).put(d.disbursementId, next);
  emitDisbursementEvent(ctx, next, atMs);
}

/**
 * Pays an address target on the ledger; a Coinbase user is paid inside Coinbase (no transaction): a simulated
 * Coinbase user of the project (POST /_sandbox/coinbase-users) sees a stablecoin in its balance.
 */
function pay(ctx: EmitContext, d: DisbursementRecord, units: bigint, atMs: number): Pick<DisbursementRecord, "onchainTransactions"> {
  if (!("address" in d.target)) {
    if ((COINBASE_USER_ASSETS as readonly string[]).includes(d.asset)) creditCoinbaseUser(ctx.store, d.target.coinbaseUserId, d.asset, units);
    return {};
  }
  const { address, network } = d.target;
  const hash = actionHash(d.disbursementId);
  payFromCustody(ctx.store, ctx.clock, { network, token: payoutToken(network, d.asset)!, to: address, units, hash, atMs });
  return { onchainTransactions: [{ transactionHash: hash, network: network as "base" }] };
}
