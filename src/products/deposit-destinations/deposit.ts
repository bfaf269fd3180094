/**
 * Sandbox-only: funds arriving at a deposit destination, as the platform
 * would see them once confirmed (POST /_sandbox/deposit-destinations/{id}/deposit).
 * The deposit becomes a transfer (source: the sender, target: the
 * destination's target) that is completed at once — or, for crypto worth
 * $3,000 or more, `processing` until submitDepositTravelRule gives the
 * originator's details. Webhook events: processing, then completed, or
 * processing and travel_rule_incomplete (src/products/transfers/events.ts).
 */
import { keccak256, toHex } from "viem";
import { sha512 } from "@noble/hashes/sha2.js";
import { toBase58 } from "../../crypto/solana.js";
import { apiError } from "../../errors/catalogue.js";
import { addressFamilyOf, custodialAsset, NETWORK_ASSETS } from "../shared/custodialAssets.js";
import { toUnits, usdMicrosOf } from "../shared/decimal.js";
import { newTransferRecord } from "../transfers/create.js";
import { transfers, transferView, type TransferRecord } from "../transfers/model.js";
import { quoteTransfer } from "../transfers/quote.js";
import { checkOnchainAddress, missingDepositTravelRule, TRAVEL_RULE_THRESHOLD_USD } from "../transfers/rules.js";
import { emitTransferEvent } from "../transfers/events.js";
import { deliver } from "../transfers/settle.js";
import type { HandlerContext } from "../../wallet/types.js";
import { findDepositDestination, statusOf } from "./model.js";

export interface DepositInput {
  amount?: unknown;
  asset?: unknown;
  /** Crypto: the sending address. */
  from?: unknown;
  /** Fiat: how the money came (ach, fedwire) and who sent it. */
  rail?: unknown;
  originatorName?: unknown;
}

type Ctx = Pick<HandlerContext, "store" | "clock" | "random">;

/** The sender of a crypto deposit when none is given: an external address derived from the destination. */
function defaultSender(network: string, seed: string): string {
  const family = addressFamilyOf(network);
  if (family === "solana") return toBase58(sha512(new TextEncoder().encode(seed)).slice(0, 32));
  const hash = keccak256(toHex(seed));
  return family === "sui" ? hash : `0x${hash.slice(-40)}`;
}

export function simulateDeposit(ctx: Ctx, depositDestinationId: string, input: DepositInput) {
  const dest = findDepositDestination(ctx.store, depositDestinationId);
  const now = ctx.clock.now();
  if (statusOf(dest, now) !== "active") {
    throw apiError(
      "invalid_request",
      `Deposit destination ${dest.depositDestinationId} is still pending; fiat destinations are active one minute after creation.`,
    );
  }
  const network = dest.crypto?.network;
  const symbol = network ? (typeof input.asset === "string" ? input.asset.toLowerCase() : dest.target.asset) : "usd";
  const asset = custodialAsset(symbol);
  if (!asset || (network && !NETWORK_ASSETS[network]!.includes(asset.symbol))) {
    throw apiError(
      "invalid_request",
      network ? `asset must be one ${network} carries: ${NETWORK_ASSETS[network]!.join(", ")}.` : "asset: fiat destinations receive usd.",
    );
  }
  const units = typeof input.amount === "string" ? toUnits(input.amount, asset.decimals) : undefined;
  if (units === undefined || units <= 0n)
    throw apiError("invalid_request", `amount must be a positive decimal string with at most ${asset.decimals} decimals, e.g. "25.00".`);
  const targetAsset = custodialAsset(dest.target.asset)!;
  const onchainTarget = "address" in dest.target ? dest.target : undefined;
  const quote = quoteTransfer({
    source: asset,
    target: targetAsset,
    amount: units,
    asset,
    amountType: "source",
    route: onchainTarget ? { kind: "onchain", network: onchainTarget.network } : { kind: "account" },
    anyAmount: true,
  });

  let source: TransferRecord["source"];
  if (network) {
    const from = typeof input.from === "string" ? input.from : defaultSender(network, `sender/${dest.depositDestinationId}`);
    checkOnchainAddress(network, from, "from");
    source = { address: from, network, asset: asset.symbol };
  } else {
    const name = typeof input.originatorName === "string" && input.originatorName ? input.originatorName : "Sandbox Depositor";
    source =
      input.rail === "fedwire"
        ? {
            currency: "usd",
            omad: `${new Date(now).toISOString().slice(0, 10).replace(/-/g, "")}SBXFED${ctx.random.hex(4).toUpperCase()}`,
            accountNumber: "89770098",
            originatorName: name.slice(0, 35),
          }
        : { currency: "usd", companyName: name.slice(0, 16), companyEntryDescription: "DEPOSIT" };
  }
  const creditTo = "address" in dest.target ? undefined : dest.target.accountId;
  const target: TransferRecord["target"] = onchainTarget ?? { accountId: creditTo!, asset: targetAsset.symbol };
  const record = newTransferRecord(ctx, {
    kind: "deposit",
    source,
    target,
    sourceAsset: asset,
    targetAsset,
    quote,
    route: onchainTarget ? { kind: "onchain", network: onchainTarget.network } : { kind: "account" },
  });
  const iso = record.createdAt;
  const incoming =
    network === "solana" ? toBase58(sha512(new TextEncoder().encode(`deposit/${record.transferId}`))) : keccak256(toHex(`deposit/${record.transferId}`));
  const held: TransferRecord = {
    ...record,
    status: "processing",
    expiresAt: undefined,
    expiresAtMs: undefined,
    executedAt: iso,
    settlesAtMs: now,
    ...(creditTo ? { targetAccountId: creditTo } : {}),
    details: { depositDestination: { id: dest.depositDestinationId }, ...(network ? { onchainTransactions: [{ transactionHash: incoming, network }] } : {}) },
  };
  if (network && usdMicrosOf(units, asset) >= BigInt(TRAVEL_RULE_THRESHOLD_USD) * 1_000_000n) {
    const statusMessage = `Deposits worth $${TRAVEL_RULE_THRESHOLD_USD.toLocaleString("en-US")} or more need travel-rule details: ${missingDepositTravelRule(undefined).join(", ")}.`;
    const waiting: TransferRecord = { ...held, awaitingTravelRule: true, details: { ...held.details, travelRule: { status: "incomplete", statusMessage } } };
    transfers(ctx.store).put(waiting.transferId, waiting);
    emitTransferEvent(ctx, "payments.transfers.processing", waiting);
    emitTransferEvent(ctx, "payments.transfers.travel_rule_incomplete", waiting);
    return transferView(waiting);
  }
  const details = deliver(ctx.store, held);
  const done: TransferRecord = { ...held, status: "completed", completedAt: iso, ...(details ? { details } : {}) };
  transfers(ctx.store).put(done.transferId, done);
  // The platform reports a deposit as it arrives (processing), then as credited (completed).
  emitTransferEvent(ctx, "payments.transfers.processing", held);
  emitTransferEvent(ctx, "payments.transfers.completed", done);
  return transferView(done);
}
