/**
 * The checks every x402 payment goes through before its scheme's own:
 * protocol version, scheme (`exact`, or `upto` in version 2), network, the
 * payment flow the requirements name, and (version 2) that the requirements
 * the payment accepted are the ones the resource server asks for — except an
 * `upto` settlement's amount, which is what the server charges (at most the
 * accepted maximum). The contract has already checked the shapes; this reads
 * them into one form.
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
  scheme: "exact" | "upto";
  network: X402Network;
  /** The network as the payment writes it (v1 name or CAIP-2). */
  networkName: string;
  requirements: Requirements;
  asset: string;
  /**
   * The requirements' amount in the asset's smallest unit (v1 maxAmountRequired, v2 amount): what `exact` moves,
   * the maximum an `upto` verification checks, the charge an `upto` settlement makes.
   */
  amount: bigint;
  payTo: string;
  maxTimeoutSeconds: number;
  extra: Record<string, unknown>;
  /** The scheme-specific signed data. */
  payload: Record<string, unknown>;
  paymentPayload: Record<string, unknown>;
}

/** The body of verify and settle: the same three fields. */
export type PaymentRequest = RequestBody<"verifyX402Payment"> | RequestBody<"settleX402Payment">;

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v && typeof v === "object" && !Array.isArray(v) ? (v as Obj) : {});

/** The payer a payload names (EIP-3009 or Permit2 authorization, Solana channel), for the answer even when the payment is refused. */
function payerHint(paymentPayload: unknown): string | undefined {
  const payload = obj(obj(paymentPayload).payload);
  const from = obj(payload.authorization).from ?? obj(payload.permit2Authorization).from;
  if (typeof from === "string" && isAddress(from, { strict: false })) return getAddress(from);
  return typeof payload.from === "string" && /^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(payload.from) ? payload.from : undefined;
}

const reject = (reason: Rejection["reason"], message: string, paymentPayload: unknown): { rejection: Rejection } => ({
  rejection: { reason, message, payer: payerHint(paymentPayload) },
});

const sameAddress = (a: string, b: string) => (a.startsWith("0x") ? a.toLowerCase() === b.toLowerCase() : a === b);

/**
 * How each scheme moves the asset (`extra.assetTransferMethod`, the first is the default) and the payment
 * flows (`extra.paymentFlow`, the first is the default) the resource server may run it with: `authorization`
 * verifies before the resource is served and settles after, `upfront` settles first, `escrow` deposits the
 * maximum first and charges after.
 */
const PAYMENT_FLOWS: Record<string, Record<string, readonly string[]>> = {
  "exact:evm": { eip3009: ["authorization", "upfront"], permit2: ["authorization", "upfront"] },
  "exact:svm": { default: ["authorization", "upfront"] },
  "upto:evm": { permit2: ["authorization"] },
  "upto:svm": { channel: ["escrow"] },
};

/** What is wrong with the requirements' transfer method or payment flow for the scheme, or undefined. */
export function paymentFlowProblem(scheme: Payment["scheme"], network: X402Network, extra: Record<string, unknown>): string | undefined {
  const methods = PAYMENT_FLOWS[`${scheme}:${network.family}`]!;
  const method = extra.assetTransferMethod ?? Object.keys(methods)[0]!;
  const flows = typeof method === "string" ? methods[method] : undefined;
  if (!flows) {
    return `extra.assetTransferMethod ${JSON.stringify(method)} is not one of the ${scheme} scheme's on ${network.v1} (${Object.keys(methods).join(", ")}).`;
  }
  const flow = extra.paymentFlow ?? flows[0];
  if (typeof flow !== "string" || !flows.includes(flow)) {
    return `extra.paymentFlow ${JSON.stringify(flow)} is not a flow of the ${scheme} scheme by ${method} (${flows.join(", ")}).`;
  }
  return undefined;
}

/**
 * Reads `{x402Version, paymentPayload, paymentRequirements}` or says why the payment cannot be the one asked for.
 * `phase` is the operation: an upto settlement's amount is the charge, not the accepted maximum.
 */
export function readPayment(body: PaymentRequest, phase: "verify" | "settle"): { payment: Payment } | { rejection: Rejection } {
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
  if ("amount" in requirements && "maxAmountRequired" in requirements) {
    return reject(
      "invalid_payment_requirements",
      "The requirements are malformed: they carry both amount (version 2) and maxAmountRequired (version 1); a requirement carries its version's one, and the official client refuses to sign any other (malformed_requirement).",
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
  if (scheme !== requirements.scheme) {
    return reject("invalid_scheme", `The payment is for the ${scheme} scheme but the requirements ask for ${String(requirements.scheme)}.`, paymentPayload);
  }
  if (scheme !== "exact" && !(scheme === "upto" && version === 2)) {
    return reject(
      "invalid_scheme",
      `The sandbox's facilitator verifies and settles the exact scheme, and upto in version 2; not ${scheme}${scheme === "upto" ? " in version 1" : ""}.`,
      paymentPayload,
    );
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
    // An upto settlement charges what was used: its amount is checked against the signed maximum by the scheme.
    const fields = scheme === "upto" && phase === "settle" ? (["asset", "payTo"] as const) : (["asset", "amount", "payTo"] as const);
    for (const field of fields) {
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
  const extra = obj(requirements.extra);
  const flowProblem = paymentFlowProblem(scheme as Payment["scheme"], network, extra);
  if (flowProblem) return reject("invalid_payment_requirements", flowProblem, paymentPayload);
  return {
    payment: {
      x402Version: version,
      scheme: scheme as Payment["scheme"],
      network,
      networkName,
      requirements,
      asset: String(requirements.asset),
      amount: BigInt(rawAmount),
      payTo: String(requirements.payTo),
      maxTimeoutSeconds: Number(requirements.maxTimeoutSeconds),
      extra,
      payload: obj(paymentPayload.payload),
      paymentPayload,
    },
  };
}
