/**
 * What the Solana WebSocket compares between two checks: an account's answer (accountSubscribe), a program's
 * accounts (programSubscribe) and the transactions that landed (logsSubscribe), read from the committed state.
 * Answers are kept as their JSON text, so a change is a different text.
 */
import { solanaTxs } from "../../chain/solana/ledger.js";
import { signaturesFor } from "../../chain/solana/signatures.js";
import { stringifyWithBigInts } from "../jsonRpc.js";
import { accountInfo } from "./accounts.js";
import type { SolanaNodeContext } from "./context.js";
import { getProgramAccounts } from "./tokenMethods.js";

/** The account as getAccountInfo answers it, as JSON text (u64s as integers). */
export const accountSnapshot = (ctx: SolanaNodeContext, address: string, encoding: unknown): string =>
  stringifyWithBigInts(accountInfo(ctx.store, ctx.network, address, encoding));

/** pubkey → account JSON text of every account of the program that passes the filters. */
export function programSnapshot(ctx: SolanaNodeContext, program: string, options: { encoding?: unknown; filters?: unknown }): Map<string, string> {
  const list = getProgramAccounts([program, { encoding: options.encoding, filters: options.filters }], ctx) as Array<{ pubkey: string; account: unknown }>;
  return new Map(list.map((entry) => [entry.pubkey, stringifyWithBigInts(entry.account)]));
}

/** The accounts that are new or changed from `before` to `after`, as programNotification values. */
export function accountChanges(before: Map<string, string>, after: Map<string, string>): Array<{ pubkey: string; account: unknown }> {
  const changed: Array<{ pubkey: string; account: unknown }> = [];
  for (const [pubkey, text] of after) if (before.get(pubkey) !== text) changed.push({ pubkey, account: JSON.parse(text) });
  return changed;
}

/**
 * The transactions that landed naming `mentions` ("*": any) not in `seen`, oldest first, as logsNotification
 * values; they are added to `seen`.
 */
export function newLogs(ctx: SolanaNodeContext, mentions: string, seen: Set<string>): Array<{ signature: string; err: unknown; logs: string[] }> {
  const fresh: Array<{ signature: string; err: unknown; logs: string[] }> = [];
  for (const signature of signaturesFor(ctx.store, ctx.network, mentions)) {
    if (seen.has(signature)) break; // newest first: the rest were seen before
    const tx = solanaTxs(ctx.store).get(signature);
    if (tx) fresh.push({ signature, err: tx.execution?.err ?? null, logs: tx.execution?.logs ?? [] });
  }
  for (const entry of fresh) seen.add(entry.signature);
  // The index keeps the newest 1,000 signatures: older ones never come back, so they need not be remembered.
  for (const old of seen) {
    if (seen.size <= 2000) break;
    seen.delete(old);
  }
  return fresh.reverse();
}
