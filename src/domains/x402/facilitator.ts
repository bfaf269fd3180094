/**
 * verifyX402Payment, settleX402Payment and supportedX402PaymentKinds.
 * A payment the facilitator refuses is a 400 with `isValid: false` (verify)
 * or `success: false` (settle) and the protocol's reason, as the platform
 * answers; a malformed body is the platform's usual 400 invalid_request.
 */
import type { Schema } from "../../contract/types.js";
import { bazaarResources, settlements } from "./model.js";
import { catalogue } from "./bazaar.js";
import { readBazaarExtension, readV1Discovery, type ExtensionOutcome } from "./bazaarExtension.js";
import { settleExactEvm, verifyExactEvm, type EvmPlan } from "./eip3009.js";
import { FACILITATOR_EVM_ADDRESS, FACILITATOR_FEE_PAYER, X402_NETWORKS } from "./networks.js";
import { readPayment, type Payment, type PaymentRequest, type Rejection } from "./payment.js";
import { settleExactSvm, verifyExactSvm, type SvmPlan } from "./svm.js";
import type { Handler, HandlerContext } from "../types.js";

type Checked = { payment: Payment; evm?: EvmPlan; svm?: SvmPlan; payer: string } | { rejection: Rejection; payment?: Payment };

/** Every check of the exact scheme, on the ledger and the sandbox clock; nothing is written. */
async function checkPayment(ctx: HandlerContext, body: PaymentRequest): Promise<Checked> {
  const read = readPayment(body);
  if ("rejection" in read) return read;
  const { payment } = read;
  if (payment.network.family === "evm") {
    const r = await verifyExactEvm(ctx, payment);
    return "rejection" in r ? { ...r, payment } : { payment, evm: r.plan, payer: r.plan.payer };
  }
  const r = await verifyExactSvm(ctx, payment);
  return "rejection" in r ? { ...r, payment } : { payment, svm: r.plan, payer: r.plan.payer };
}

export const verifyX402Payment: Handler<"verifyX402Payment"> = async (req, ctx) => {
  const checked = await checkPayment(ctx, req.body);
  if ("rejection" in checked) {
    const { reason, message, payer } = checked.rejection;
    const refusal: Schema<"x402VerifyPaymentRejection"> = { isValid: false, invalidReason: reason, invalidMessage: message, ...(payer ? { payer } : {}) };
    return { status: 400, body: refusal };
  }
  return { status: 200, body: { isValid: true, payer: checked.payer } };
};

/** What the payment says about the resource it pays for: catalogue it when it carries discovery data. */
function discover(ctx: HandlerContext, p: Payment): { outcome?: ExtensionOutcome; resourceKey?: string } {
  const extension = (p.paymentPayload.extensions as Record<string, unknown> | undefined)?.bazaar;
  const outcome =
    p.x402Version === 2
      ? extension === undefined
        ? undefined
        : readBazaarExtension(extension, p.paymentPayload.resource, p.requirements, 2)
      : readV1Discovery(p.requirements);
  if (outcome?.status === "success") return { outcome, resourceKey: catalogue(ctx, outcome.entry, false).key };
  const url = p.x402Version === 2 ? (p.paymentPayload.resource as { url?: unknown } | undefined)?.url : p.requirements.resource;
  const known = typeof url === "string" ? bazaarResources(ctx.store).get(url) : undefined;
  return { outcome, resourceKey: known?.key };
}

export const settleX402Payment: Handler<"settleX402Payment"> = async (req, ctx) => {
  const checked = await checkPayment(ctx, req.body);
  if ("rejection" in checked) {
    const { reason, message, payer } = checked.rejection;
    const network = checked.payment?.networkName ?? req.body.paymentRequirements.network;
    const refusal: Schema<"x402SettlePaymentRejection"> = { success: false, errorReason: reason, errorMessage: message, ...(payer ? { payer } : {}), network };
    return { status: 400, body: refusal };
  }
  const { payment } = checked;
  const transaction = checked.evm ? settleExactEvm(ctx, payment.network.ledger, checked.evm).hash : settleExactSvm(ctx, payment, checked.svm!);
  const { outcome, resourceKey } = discover(ctx, payment);
  settlements(ctx.store).put(transaction, {
    id: transaction,
    network: payment.network.ledger,
    payer: checked.payer,
    payTo: payment.payTo,
    asset: payment.asset,
    amount: payment.amount.toString(),
    resourceKey,
    messageHash: checked.svm?.messageHash,
    atMs: ctx.clock.now(),
  });
  // The discovery outcome travels in the header the protocol defines for extension responses.
  const headers: Record<string, string> = {};
  if (outcome) {
    const bazaar = outcome.status === "success" ? { status: "success" } : { status: "rejected", rejectedReason: outcome.rejectedReason };
    headers["extension-responses"] = Buffer.from(JSON.stringify({ bazaar })).toString("base64");
  }
  return {
    status: 200,
    headers,
    body: { success: true, payer: checked.payer, transaction, network: payment.networkName, amount: payment.amount.toString() },
  };
};

export const supportedX402PaymentKinds: Handler<"supportedX402PaymentKinds"> = () => {
  const kinds = ([2, 1] as const).flatMap((x402Version) =>
    X402_NETWORKS.map((n) => ({
      x402Version,
      scheme: "exact" as const,
      network: x402Version === 1 ? n.v1 : n.caip2,
      ...(n.family === "svm" ? { extra: { feePayer: FACILITATOR_FEE_PAYER.address } } : {}),
    })),
  );
  return {
    status: 200,
    body: { kinds, extensions: ["bazaar"], signers: { "eip155:*": [FACILITATOR_EVM_ADDRESS], "solana:*": [FACILITATOR_FEE_PAYER.address] } },
  };
};
