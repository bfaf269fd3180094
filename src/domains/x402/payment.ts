/**
 * The checks every x402 payment goes through before its scheme's own:
 * protocol version, scheme, network, and (version 2) that the requirements
 * the payment accepted are the ones the resource server asks for. The
 * contract has already checked the shapes; this reads them into one form.
 */
import { getAddress, isAddress } from "viem";
import type { RequestBody, Schema } from "../../contract/types.js";
import type { Requirements } from "./model.js";
import { x402Network, type X402Network } from "./networks.js";

/** Why a payment is refused: an `invalidReason` (verify) or `errorReason` (settle) of the contract. */
export interface Rejection {
  /** Every reason the facilitator gives is one of verify's, which settle's reasons include. */
  reason: Schema<"x402VerifyInvalidReason">;
  message: string;
  payer?: string;
}

export interface Payment {
  x402Version: 1 | 2;
  network: X402Network;
  /** The network as the payment writes it (v1 name or CAIP-2). */
  networkName: string;
  requirements: Requirements;
  asset: string;
  /** The exact amount asked, in the asset's smallest unit (v1 maxAmountRequired, v2 amount). */
  amount: bigint;
  payTo: string;
  extra: Record<string, unknown>;
  /** The scheme-specific signed data. */
  payload: Record<string, unknown>;
  paymentPayload: Record<string, unknown>;
}

/** The body of verify and settle: the same three fields. */
export type PaymentRequest = RequestBody<"verifyX402Payment"> | RequestBody<"settleX402Payment">;

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v && typeof v === "object" && !Array.isArray(v) ? (v as Obj) : {});

/** The payer an EVM payload names, for the answer even when the payment is refused. */
function payerHint(paymentPayload: unknown): string | undefined {
  const from = obj(obj(obj(paymentPayload).payload).authorization).from;
  return typeof from === "string" && isAddress(from, { strict: false }) ? getAddress(from) : undefined;
}

const reject = (reason: Rejection["reason"], message: string, paymentPayload: unknown): { rejection: Rejection } => ({
  rejection: { reason, message, payer: payerHint(paymentPayload) },
});

const sameAddress = (a: string, b: string) => (a.startsWith("0x") ? a.toLowerCase() === b.toLowerCase() : a === b);

/** Reads `{x402Version, paymentPayload, paymentRequirements}` or says why the payment cannot be the one asked for. */
export function readPayment(body: PaymentRequest): { payment: Payment } | { rejection: Rejection } {
  const paymentPayload = obj(body.paymentPayload);
  const requirements = obj(body.paymentRequirements);
  const version = body.x402Version;
  if (paymentPayload.x402Version !== version) {
    return reject(
      "invalid_x402_version",
      `x402Version is ${String(version)} but the payment payload says ${String(paymentPayload.x402Version)}; they must be the same.`,
      paymentPayload,
    );
  }
  const payloadIsV2 = "accepted" in paymentPayload;
  const requirementsAreV1 = "maxAmountRequired" in requirements;
  if (payloadIsV2 !== (version === 2) || requirementsAreV1 !== (version === 1)) {
    return reject(
      "invalid_x402_version",
      `x402Version ${String(version)} needs the version ${String(version)} shapes: ${version === 1 ? "a payload with scheme and network, and requirements with maxAmountRequired" : "a payload with accepted, and requirements with amount"}.`,
      paymentPayload,
    );
  }
  const accepted = version === 2 ? obj(paymentPayload.accepted) : paymentPayload;
  const scheme = String(accepted.scheme);
  if (scheme !== "exact" || requirements.scheme !== "exact") {
    const other = scheme !== "exact" ? scheme : String(requirements.scheme);
    return reject("invalid_scheme", `The sandbox's facilitator verifies and settles the exact scheme only, not ${other}.`, paymentPayload);
  }
  const networkName = String(accepted.network);
  if (networkName !== requirements.network) {
    return reject("invalid_network", `The payment is for ${networkName} but the requirements ask for ${String(requirements.network)}.`, paymentPayload);
  }
  const network = x402Network(networkName);
  if (!network) {
    return reject(
      "invalid_network",
      `The sandbox settles exact payments on base, base-sepolia, solana and solana-devnet (and their CAIP-2 ids); ${networkName} is not simulated.`,
      paymentPayload,
    );
  }
  if (version === 2) {
    for (const field of ["asset", "amount", "payTo"] as const) {
      const a = String(accepted[field]);
      const r = String(requirements[field]);
      if (!sameAddress(a, r)) {
        return reject(
          "invalid_payment_requirements",
          `The payment accepted ${field} ${a} but the requirements ask for ${r}; pay the requirements the resource server sent.`,
          paymentPayload,
        );
      }
    }
  }
  const rawAmount = String(version === 1 ? requirements.maxAmountRequired : requirements.amount);
  if (!/^[0-9]+$/.test(rawAmount)) {
    return reject(
      "invalid_payment_requirements",
      `The required amount must be a whole number of the asset's smallest unit, got "${rawAmount}".`,
      paymentPayload,
    );
  }
  return {
    payment: {
      x402Version: version,
      network,
      networkName,
      requirements,
      asset: String(requirements.asset),
      amount: BigInt(rawAmount),
      payTo: String(requirements.payTo),
      extra: obj(requirements.extra),
      payload: obj(paymentPayload.payload),
      paymentPayload,
    },
  };
}
