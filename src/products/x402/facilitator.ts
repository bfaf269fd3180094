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
import { settleExactEvm, verifyExactEvm } from "./eip3009.js";
import { FACILITATOR_EVM_ADDRESS, FACILITATOR_FEE_PAYER, X402_NETWORKS } from "./networks.js";
import { readPayment, type Payment, type PaymentRequest, type Rejection } from "./payment.js";
import { settleExactSvm, verifyExactSvm } from "./svm.js";
import { settleUptoEvm, verifyUptoEvm } from "./uptoEvm.js";
import { facilitatorReceiverAuthorizer, settleUptoSvm, verifyUptoSvm } from "./uptoSvm.js";
import type { Handler, HandlerContext } from "../../wallet/types.js";

/** What a settlement did: its transaction ("" when nothing was sent), the amount it reports, and whether it was a payment for the resource. */
interface Execution {
  transaction: string;
  amount: bigint;
  /** False for an upto deposit (the charge comes with the claim) and a zero charge: the Bazaar counts payments. */
  paid: boolean;
  /** Solana exact: the settled message, to refuse it a second time. */
  messageHash?: string;
}

type Checked = { payment: Payment; payer: string; execute: () => Execution } | { rejection: Rejection; payment?: Payment };

/** Every check of the payment's scheme, on the ledger and the sandbox clock; nothing is written until `execute`. */
async function checkPayment(ctx: HandlerContext, body: PaymentRequest, phase: "verify" | "settle"): Promise<Checked> {
  const read = readPayment(body, phase);
  if ("rejection" in read) return read;
  const { payment: p } = read;
  const ledger = p.network.ledger;
  if (p.scheme === "upto" && p.network.family === "evm") {
    const r = await verifyUptoEvm(ctx, p, phase);
    if ("rejection" in r) return { ...r, payment: p };
    const { plan } = r;
    return {
      payment: p,
      payer: plan.payer,
      execute: () => ({ transaction: settleUptoEvm(ctx, ledger, plan)?.hash ?? "", amount: plan.charge, paid: plan.charge > 0n }),
    };
  }
  if (p.scheme === "upto") {
    const r = await verifyUptoSvm(ctx, p, phase);
    if ("rejection" in r) return { ...r, payment: p };
    const { plan } = r;
    if (plan.step === "verify") return { payment: p, payer: plan.payer, execute: () => ({ transaction: "", amount: 0n, paid: false }) };
    return {
      payment: p,
      payer: plan.payer,
      execute: () => ({ ...settleUptoSvm(ctx, p, plan), paid: plan.step === "claim" && plan.charge > 0n }),
    };
  }
  if (p.network.family === "evm") {
    const r = await verifyExactEvm(ctx, p);
    if ("rejection" in r) return { ...r, payment: p };
    return { payment: p, payer: r.plan.payer, execute: () => ({ transaction: settleExactEvm(ctx, ledger, r.plan).hash, amount: p.amount, paid: true }) };
  }
  const r = await verifyExactSvm(ctx, p);
  if ("rejection" in r) return { ...r, payment: p };
  return {
    payment: p,
    payer: r.plan.payer,
    execute: () => ({ transaction: settleExactSvm(ctx, p, r.plan), amount: p.amount, paid: true, messageHash: r.plan.messageHash }),
  };
}

export const verifyX402Payment: Handler<"verifyX402Payment"> = async (req, ctx) => {
  const checked = await checkPayment(ctx, req.body, "verify");
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
  const checked = await checkPayment(ctx, req.body, "settle");
  if ("rejection" in checked) {
    const { reason, message, payer } = checked.rejection;
    const network = checked.payment?.networkName ?? req.body.paymentRequirements.network;
    const refusal: Schema<"x402SettlePaymentRejection"> = { success: false, errorReason: reason, errorMessage: message, ...(payer ? { payer } : {}), network };
    return { status: 400, body: refusal };
  }
  const { payment } = checked;
  const { transaction, amount, paid, messageHash } = checked.execute();
  // The discovery outcome travels in the header the protocol defines for extension responses.
  const headers: Record<string, string> = {};
  if (paid) {
    const { outcome, resourceKey } = discover(ctx, payment);
    settlements(ctx.store).put(transaction, {
      id: transaction,
      network: payment.network.ledger,
      payer: checked.payer,
      payTo: payment.payTo,
      asset: payment.asset,
      amount: amount.toString(),
      resourceKey,
      messageHash,
      atMs: ctx.clock.now(),
    });
    if (outcome) {
      const bazaar = outcome.status === "success" ? { status: "success" } : { status: "rejected", rejectedReason: outcome.rejectedReason };
      headers["extension-responses"] = Buffer.from(JSON.stringify({ bazaar })).toString("base64");
    }
  }
  return {
    status: 200,
    headers,
    body: { success: true, payer: checked.payer, transaction, network: payment.networkName, amount: amount.toString() },
  };
};

/**
 * What the facilitator settles: exact in versions 1 and 2, upto in version 2. An upto kind names what its
 * requirements must carry: the EVM address its Permit2 witness binds (`facilitatorAddress`), and on Solana the
 * fee payer and the receiver authorizer that signs vouchers for resource servers without their own.
 */
export const supportedX402PaymentKinds: Handler<"supportedX402PaymentKinds"> = () => {
  const exact = ([2, 1] as const).flatMap((x402Version) =>
    X402_NETWORKS.map((n) => ({
      x402Version,
      scheme: "exact" as const,
      network: x402Version === 1 ? n.v1 : n.caip2,
      ...(n.family === "svm" ? { extra: { feePayer: FACILITATOR_FEE_PAYER.address } } : {}),
    })),
  );
  const upto = X402_NETWORKS.map((n) => ({
    x402Version: 2 as const,
    scheme: "upto" as const,
    network: n.caip2,
    extra:
      n.family === "evm"
        ? { facilitatorAddress: FACILITATOR_EVM_ADDRESS }
        : { feePayer: FACILITATOR_FEE_PAYER.address, receiverAuthorizer: facilitatorReceiverAuthorizer() },
  }));
  const kinds = [...exact.slice(0, X402_NETWORKS.length), ...upto, ...exact.slice(X402_NETWORKS.length)];
  return {
    status: 200,
    body: {
      kinds,
      extensions: ["bazaar", "eip2612GasSponsoring"],
      signers: { "eip155:*": [FACILITATOR_EVM_ADDRESS], "solana:*": [FACILITATOR_FEE_PAYER.address] },
    },
  };
};
