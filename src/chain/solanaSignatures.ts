/**
 * Address → signatures of the transactions that named it, newest last, per network: what getSignaturesForAddress
 * answers from without scanning the history. The newest 1,000 per address are kept (the RPC's largest page).
 */
import { declareCollection } from "../store/collections.js";
import type { ProjectTx } from "../store/store.js";

const SIGNATURES_BY_ADDRESS = declareCollection<{ signatures: string[] }>("solanaSignaturesByAddress");
const MAX_KEPT = 1000;

export function indexSignature(store: ProjectTx, network: string, address: string, signature: string): void {
  const key = `${network}|${address}`;
  const list = store.collection(SIGNATURES_BY_ADDRESS).get(key)?.signatures ?? [];
  list.push(signature);
  store.collection(SIGNATURES_BY_ADDRESS).put(key, { signatures: list.length > MAX_KEPT ? list.slice(-MAX_KEPT) : list });
}

/** The signatures of transactions that named `address`, newest first. */
export function signaturesFor(store: ProjectTx, network: string, address: string): string[] {
  return [...(store.collection(SIGNATURES_BY_ADDRESS).get(`${network}|${address}`)?.signatures ?? [])].reverse();
}
