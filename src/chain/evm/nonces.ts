/**
 * The next nonce of each EVM sender on each network. Only this module knows how nonces are stored (one record
 * per lowercase address and network): senders, the node and the EVM runtime read and move them through it.
 */
import { declareCollection } from "../../store/collections.js";
import type { ProjectTx } from "../../store/store.js";

const EVM_NONCES = declareCollection<{ next: number }>("evmNonces");
const nonces = (store: ProjectTx) => store.collection(EVM_NONCES);
const keyOf = (network: string, address: string) => `${address.toLowerCase()}:${network}`;

/** The nonce `address`'s next transaction on `network` takes (0 for a sender that never sent). */
export const nextNonce = (store: ProjectTx, network: string, address: string): number => nonces(store).get(keyOf(network, address))?.next ?? 0;

/** Records that `address`'s next transaction on `network` takes `next`. */
export function setNextNonce(store: ProjectTx, network: string, address: string, next: number): void {
  nonces(store).put(keyOf(network, address), { next });
}

/** Forgets `address`'s nonce on `network` (the EVM deleted the account). */
export function clearNonce(store: ProjectTx, network: string, address: string): void {
  if (nonces(store).get(keyOf(network, address))) nonces(store).delete(keyOf(network, address));
}

/** The nonce of `sender`'s next transaction on `network`, counted as used: for the platform's own senders (facilitator, operator). */
export function takeNonce(store: ProjectTx, network: string, sender: string): number {
  const next = nextNonce(store, network, sender);
  setNextNonce(store, network, sender, next + 1);
  return next;
}
