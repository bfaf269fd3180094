/**
 * Creating and hydrating charges. Creation records what is owed; hydration turns a charge into the payment
 * intent a payer's wallet sends to the Transfers contract (`transfers.ts`), in OnchainKit's `PayTransaction`
 * shape. The fee is the platform's 1 %, taken out of the amount: the payer pays `amount`, the recipient gets
 * 99 % of it.
 */
import type { Hex } from "viem";
import { chainIdOf, evmTokenBySymbol } from "../../../chain/evm/index.js";
import type { Clock } from "../../../clock.js";
import type { Random } from "../../../random.js";
import type { ProjectTx } from "../../../store/store.js";
import { type ChargeIntent, type ChargeRecord, chargeStatus, charges } from "./model.js";
import { COMMERCE_OPERATOR_ADDRESS, COMMERCE_SIGNATURE_PREFIX, COMMERCE_TRANSFERS_ADDRESS, intentSignature } from "./transfers.js";

/** How long a charge can be paid. */
const CHARGE_LIFETIME_MS = 60 * 60 * 1000;
const FEE_BPS = 100n;

export interface NewCharge {
  network: string;
  name: string;
  /** USDC, smallest unit. */
  amount: bigint;
  recipient: `0x${string}`;
  productId?: string;
}

/** Whether the network has USDC for a charge to be paid in. */
export const chargeableNetwork = (network: string) => chainIdOf(network) !== undefined && evmTokenBySymbol(network, "USDC") !== undefined;

/** Records a NEW charge (the caller checked the network has USDC and the amount is positive). */
export function createCharge(store: ProjectTx, clock: Clock, random: Random, c: NewCharge): ChargeRecord {
  const record: ChargeRecord = {
    chargeId: random.uuid(),
    network: c.network,
    chainId: chainIdOf(c.network)!,
    name: c.name,
    ...(c.productId ? { productId: c.productId } : {}),
    amount: c.amount.toString(),
    recipient: c.recipient,
    status: "NEW",
    createdAt: new Date(clock.now()).toISOString(),
    expiresAt: new Date(clock.now() + CHARGE_LIFETIME_MS).toISOString(),
  };
  charges(store).insert(record.chargeId, record);
  return record;
}

/** A charge the payer may still pay, or undefined (unknown, paid or expired: the kit's "invalid charge"). */
export function payableCharge(store: ProjectTx, clock: Clock, chargeId: string): ChargeRecord | undefined {
  const charge = charges(store).get(chargeId);
  if (!charge) return undefined;
  const status = chargeStatus(charge, clock.now());
  return status === "NEW" || status === "PENDING" ? charge : undefined;
}

/** Issues a fresh payment intent for `sender` (replacing any earlier one) and answers it as OnchainKit's PayTransaction. */
export function hydrateCharge(store: ProjectTx, random: Random, charge: ChargeRecord, sender: `0x${string}`) {
  const amount = BigInt(charge.amount);
  const feeAmount = (amount * FEE_BPS) / 10_000n;
  const unsigned: Omit<ChargeIntent, "signature"> = {
    id: `0x${random.hex(16)}` as Hex,
    sender,
    recipientAmount: (amount - feeAmount).toString(),
    feeAmount: feeAmount.toString(),
    deadline: Math.floor(Date.parse(charge.expiresAt) / 1000),
  };
  const intent: ChargeIntent = { ...unsigned, signature: intentSignature(charge, unsigned) };
  charges(store).put(charge.chargeId, { ...charge, status: "PENDING", intent });
  const usdc = evmTokenBySymbol(charge.network, "USDC")!.address;
  return {
    id: charge.chargeId,
    callData: {
      deadline: charge.expiresAt.replace(/\.\d{3}Z$/, "Z"),
      feeAmount: intent.feeAmount,
      id: intent.id,
      operator: COMMERCE_OPERATOR_ADDRESS,
      prefix: COMMERCE_SIGNATURE_PREFIX,
      recipient: charge.recipient,
      recipientAmount: intent.recipientAmount,
      recipientCurrency: usdc,
      refundDestination: sender,
      signature: intent.signature,
    },
    metaData: { chainId: charge.chainId, contractAddress: COMMERCE_TRANSFERS_ADDRESS, sender, settlementCurrencyAddress: usdc },
  };
}

/** A charge as the admin API and the dashboard show it, its status as of the sandbox clock. */
export function chargeView(charge: ChargeRecord, nowMs: number) {
  return {
    chargeId: charge.chargeId,
    network: charge.network,
    name: charge.name,
    ...(charge.productId ? { productId: charge.productId } : {}),
    amount: charge.amount,
    recipient: charge.recipient,
    status: chargeStatus(charge, nowMs),
    createdAt: charge.createdAt,
    expiresAt: charge.expiresAt,
    ...(charge.intent ? { payer: charge.intent.sender } : {}),
    ...(charge.payment ? { transactionHash: charge.payment.transactionHash, paidAt: charge.payment.paidAt } : {}),
  };
}
