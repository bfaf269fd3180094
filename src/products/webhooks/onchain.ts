/**
 * Activity events from the project's ledger: every ERC-20 log of a mined
 * block on Base or Base Sepolia becomes an `onchain.activity.detected` event
 * (and a Transfer also a `wallet.activity.detected` one) for the enabled
 * subscriptions whose labels it carries. A block counts once the sandbox
 * clock has reached it; each subscription reads the ledger from where it
 * was created (or last enabled), so it never sees blocks from before.
 * Sends made through wallet operations get their `wallet.transaction.confirmed`
 * (or `.failed`) here too, once their block is mined.
 */
import { createHash } from "node:crypto";
import { decodeEventLog, erc20Abi, getAddress, type Hex } from "viem";
import { type LedgerLog, type LedgerTx, ledgerTxs } from "../../chain/evm/index.js";
import { blockTimestampOf, headBlock } from "../../chain/index.js";
import { solanaTxs } from "../../chain/solana/index.js";
import type { Clock } from "../../clock.js";
import type { ProjectTx } from "../../store/store.js";
import { derivedUuid } from "../../wallet/shared/derivedId.js";
import { labelsMatch, queueDelivery, subscriptionWants } from "../../wallet/events/emit.js";
import { deliveries, deliveryId, scanCursors, subscriptions, usesLabels, type EventType, type SubscriptionRecord } from "../../wallet/events/model.js";
import { ACTIVITY_NETWORKS, activityNetworkOf } from "./rules.js";
import { walletOutcomePayload, watchedWalletTransactions } from "../../wallet/events/walletEvents.js";

const SIGNATURES: Record<string, string> = {
  Transfer: "Transfer(address,address,uint256)",
  Approval: "Approval(address,address,uint256)",
};

/** One decoded contract log, with what the payloads and labels need. */
export interface ActivityFacts {
  network: string; // the platform's name: base-mainnet, base-sepolia
  blockNumber: number;
  blockTimestamp: string;
  transactionHash: string;
  transactionFrom: string;
  transactionTo: string;
  logIndex: number;
  contractAddress: string;
  eventName: string;
  signatureHash: string;
  parameters: Record<string, string>;
}

const platformNetwork = (ledgerNetwork: string) => Object.keys(ACTIVITY_NETWORKS).find((k) => ACTIVITY_NETWORKS[k] === ledgerNetwork)!;
const isoSeconds = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");

function decode(tx: LedgerTx, log: LedgerLog): ActivityFacts | undefined {
  let decoded: ReturnType<typeof decodeEventLog<typeof erc20Abi>>;
  try {
    decoded = decodeEventLog({ abi: erc20Abi, data: log.data, topics: log.topics as [Hex, ...Hex[]] });
  } catch {
    return undefined; // not an ERC-20 event
  }
  const parameters = Object.fromEntries(
    Object.entries(decoded.args as Record<string, unknown>).map(([k, v]) => [k, typeof v === "bigint" ? v.toString() : getAddress(String(v))]),
  );
  return {
    network: platformNetwork(tx.network),
    blockNumber: tx.block,
    blockTimestamp: isoSeconds(blockTimestampOf(tx.network, tx.block)),
    transactionHash: tx.hash,
    transactionFrom: getAddress(tx.from),
    transactionTo: tx.to ? getAddress(tx.to) : "",
    logIndex: log.logIndex,
    contractAddress: getAddress(log.address),
    eventName: decoded.eventName,
    signatureHash: log.topics[0]!,
    parameters,
  };
}

/** The labels an activity event carries, for the total-overlap match. */
function activityLabels(f: ActivityFacts): Record<string, string> {
  const labels: Record<string, string> = {
    network: f.network,
    contract_address: f.contractAddress,
    event_name: f.eventName,
    event_signature: SIGNATURES[f.eventName] ?? f.eventName,
    event_signature_hash: f.signatureHash,
    transaction_from: f.transactionFrom,
    transaction_to: f.transactionTo,
  };
  for (const [k, v] of Object.entries(f.parameters)) labels[`params.${k}`] = v;
  return labels;
}

/** The body the platform documents for the event type (flat for onchain activity; an envelope for wallet activity). */
export function activityPayload(eventType: EventType, eventId: string, f: ActivityFacts): unknown {
  if (eventType === "onchain.activity.detected") {
    return {
      block_number: f.blockNumber,
      contract_address: f.contractAddress,
      event_name: f.eventName,
      event_signature: SIGNATURES[f.eventName] ?? f.eventName,
      log_index: f.logIndex,
      network: f.network,
      parameters: f.parameters,
      timestamp: f.blockTimestamp,
      transaction_from: f.transactionFrom,
      transaction_hash: f.transactionHash,
      transaction_to: f.transactionTo,
    };
  }
  return {
    eventId,
    timestamp: f.blockTimestamp,
    data: {
      network: f.network,
      blockNumber: String(f.blockNumber),
      blockTimestamp: f.blockTimestamp,
      transactionHash: f.transactionHash,
      logIndex: String(f.logIndex),
      contractAddress: f.contractAddress,
      eventName: f.eventName,
      ...f.parameters,
    },
    eventType,
  };
}

/** Wallet activity covers ERC-20 transfers only (native ETH movements are not reported, as on the platform). */
const producesEvent = (eventType: EventType, f: ActivityFacts) =>
  eventType === "onchain.activity.detected" || (eventType === "wallet.activity.detected" && f.eventName === "Transfer");

/** The same log gives the same event id in every subscription of the project, so receivers can deduplicate. */
function activityEventId(projectId: string, eventType: string, f: ActivityFacts): string {
  const h = createHash("sha256").update(`${projectId}|${eventType}|${f.network}|${f.transactionHash}|${f.logIndex}`).digest("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${((parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** Where a subscription starts reading: the chain's head now, so only blocks mined from here on count. */
export function startScanAt(store: ProjectTx, clock: Clock, sub: Pick<SubscriptionRecord, "subscriptionId" | "eventTypes" | "labels">): void {
  const network = activityNetworkOf(sub);
  if (network === undefined) scanCursors(store).delete(sub.subscriptionId);
  else scanCursors(store).put(sub.subscriptionId, { subscriptionId: sub.subscriptionId, network, block: headBlock(store, network, clock.now()) });
}

/**
 * Sends waiting for their block (walletEvents.ts): once it is mined, each enabled
 * subscription taking the outcome gets `.confirmed` (or `.failed` when the
 * transaction reverted), stamped with the block's time; then the send is forgotten.
 * The event id derives from the transaction, so it is the same in every subscription.
 */
function confirmWalletTransactions(store: ProjectTx, clock: Clock): number {
  let queued = 0;
  for (const sent of watchedWalletTransactions(store).list()) {
    const key = `${sent.network}|${sent.hash}`;
    const mined = sent.chain === "evm" ? ledgerTxs(store).get(sent.hash as Hex) : undefined;
    const landed = sent.chain === "solana" ? solanaTxs(store).get(sent.hash) : undefined;
    const block = mined?.block ?? landed?.slot;
    if (block === undefined) {
      watchedWalletTransactions(store).delete(key); // gone from the ledger (project reset or restored)
      continue;
    }
    if (headBlock(store, sent.network, clock.now()) < block) continue;
    const outcome = mined?.status === "reverted" || landed?.status === "failed" ? "failed" : "confirmed";
    const eventType: EventType = `wallet.transaction.${outcome}`;
    const eventId = derivedUuid(`webhook-event|${store.projectId}|${eventType}|${key}`);
    const payload = JSON.stringify(walletOutcomePayload(sent, outcome, new Date(blockTimestampOf(sent.network, block)).toISOString()));
    for (const sub of subscriptions(store).filter((s) => subscriptionWants(s, eventType, undefined))) {
      if (deliveries(store).get(deliveryId(sub.subscriptionId, eventId))) continue;
      queueDelivery(store, clock, sub, eventType, eventId, payload);
      queued++;
    }
    watchedWalletTransactions(store).delete(key);
  }
  return queued;
}

/**
 * Reads newly mined blocks: the events of sends whose block is mined, and for every
 * enabled activity subscription, the logs it wants. Returns how many deliveries were queued.
 */
export function scanActivity(store: ProjectTx, clock: Clock): number {
  let queued = confirmWalletTransactions(store, clock);
  for (const sub of subscriptions(store).filter((s) => s.isEnabled && s.eventTypes.some(usesLabels))) {
    const network = activityNetworkOf(sub);
    const cursor = scanCursors(store).get(sub.subscriptionId);
    if (network === undefined || !cursor || cursor.network !== network) {
      startScanAt(store, clock, sub);
      continue;
    }
    const head = headBlock(store, network, clock.now());
    if (head <= cursor.block) continue;
    const txs = ledgerTxs(store)
      .filter((t) => t.network === network && t.block > cursor.block && t.block <= head && t.status === "success" && t.logs.length > 0)
      .sort((a, b) => a.block - b.block || a.submittedAtMs - b.submittedAtMs);
    for (const tx of txs) {
      for (const log of tx.logs) {
        const facts = decode(tx, log);
        if (!facts || !labelsMatch(sub.labels, activityLabels(facts))) continue;
        for (const eventType of sub.eventTypes.filter((t) => usesLabels(t) && producesEvent(t, facts))) {
          const eventId = activityEventId(store.projectId, eventType, facts);
          if (deliveries(store).get(deliveryId(sub.subscriptionId, eventId))) continue;
          queueDelivery(store, clock, sub, eventType, eventId, JSON.stringify(activityPayload(eventType, eventId, facts)));
          queued++;
        }
      }
    }
    scanCursors(store).put(sub.subscriptionId, { ...cursor, block: head });
  }
  return queued;
}
