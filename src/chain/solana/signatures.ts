/**
 * Address → signatures of the transactions that named it, per network: what getSignaturesForAddress and
 * logsSubscribe answer from without scanning the history. Each address has a counter and one small record per
 * signature (`network|address|n`), so a transaction writes the same few bytes however long an address's history
 * is; the newest 1,000 per address are kept (the RPC's largest page), older entries are deleted as new ones come.
 */
import { declareCollection } from "../../store/collections.js";
import type { ProjectTx } from "../../store/store.js";

const SIGNATURE_COUNTS = declareCollection<{ count: number }>("solanaSignatureCounts");
const SIGNATURES_BY_ADDRESS = declareCollection<{ signature: string }>("solanaSignaturesByAddress");
const MAX_KEPT = 1000;

export function indexSignature(store: ProjectTx, network: string, address: string, signature: string): void {
  const key = `${network}|${address}`;
  const count = store.collection(SIGNATURE_COUNTS).get(key)?.count ?? 0;
  store.collection(SIGNATURE_COUNTS).put(key, { count: count + 1 });
  store.collection(SIGNATURES_BY_ADDRESS).put(`${key}|${count}`, { signature });
  if (count >= MAX_KEPT) store.collection(SIGNATURES_BY_ADDRESS).delete(`${key}|${count - MAX_KEPT}`);
}

/** The signatures of transactions that named `address`, newest first, read one by one as the caller asks. */
export function* signaturesFor(store: ProjectTx, network: string, address: string): Generator<string> {
  const key = `${network}|${address}`;
  const count = store.collection(SIGNATURE_COUNTS).get(key)?.count ?? 0;
  for (let n = count - 1; n >= Math.max(0, count - MAX_KEPT); n--) {
    const entry = store.collection(SIGNATURES_BY_ADDRESS).get(`${key}|${n}`);
    if (entry) yield entry.signature;
  }
}
