/**
 * validateX402Resource: the Bazaar probes an endpoint the way a paying
 * client would, reads its 402 (v2: the PAYMENT-REQUIRED header; v1: the JSON
 * body), says whether a payment against it would be accepted here, and
 * updates the index: a valid endpoint with the bazaar extension is
 * catalogued, a listed endpoint that no longer answers a valid 402 becomes
 * inactive.
 */
import type { Schema } from "../../contract/types.js";
import type { Handler, HandlerContext, HandlerRequest, HandlerResult } from "../../wallet/types.js";
import { catalogue, qualityOf } from "./bazaar.js";
import { readBazaarExtension, readV1Discovery } from "./bazaarExtension.js";
import { eip3009Domain } from "./eip3009.js";
import { bazaarResources, type BazaarResource } from "./model.js";
import { FACILITATOR_EVM_ADDRESS, FACILITATOR_FEE_PAYER, x402Network } from "./networks.js";
import { paymentFlowProblem } from "./payment.js";
import { isLoopbackUrl, parseAbsoluteUrl, probe, type ProbeAnswer } from "./probe.js";
import { evmTokenByAddress } from "../../chain/evm/index.js";
import { solanaTokenBySymbol } from "../../chain/solana/index.js";

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj | undefined => (v && typeof v === "object" && !Array.isArray(v) ? (v as Obj) : undefined);
const str = (v: unknown, max = 2048) => typeof v === "string" && v.length <= max;
const address = (v: unknown) => typeof v === "string" && v.length >= 1 && v.length <= 128;

const V2_NETWORKS = [
  "eip155:8453",
  "eip155:84532",
  "eip155:137",
  "eip155:42161",
  "eip155:480",
  "eip155:4801",
  "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp",
  "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1",
];
const V1_NETWORKS = ["base", "base-sepolia", "solana", "solana-devnet"];

/** What is wrong with one payment option, measured against the contract's requirement shapes, or undefined. */
function requirementsProblem(a: Obj, version: number): string | undefined {
  const extraOk = a.extra === undefined || obj(a.extra) !== undefined;
  if (version === 2) {
    if (!["exact", "upto", "batch-settlement"].includes(String(a.scheme))) return `scheme ${String(a.scheme)} is not a scheme of the protocol`;
    if (!V2_NETWORKS.includes(String(a.network))) return `network ${String(a.network)} is not a CAIP-2 network the platform knows`;
    if (!address(a.asset) || !str(a.amount) || !address(a.payTo) || !Number.isInteger(a.maxTimeoutSeconds) || !extraOk)
      return "asset, amount, payTo and maxTimeoutSeconds are required";
    return undefined;
  }
  if (a.scheme !== "exact") return `scheme ${String(a.scheme)} is not a version 1 scheme`;
  if (!V1_NETWORKS.includes(String(a.network))) return `network ${String(a.network)} is not a version 1 network`;
  const fields = str(a.maxAmountRequired) && str(a.resource) && str(a.description, 500) && str(a.mimeType) && address(a.payTo) && address(a.asset);
  if (!fields || !Number.isInteger(a.maxTimeoutSeconds) || !extraOk || (a.outputSchema !== undefined && !obj(a.outputSchema))) {
    return "maxAmountRequired, resource, description, mimeType, payTo, asset and maxTimeoutSeconds are required";
  }
  return undefined;
}

/** The PaymentRequired of a 402 answer, or why it cannot be read. */
function readPaymentRequired(answer: ProbeAnswer): { paymentRequired: Obj } | { problem: string } {
  let parsed: unknown;
  const header = answer.headers["payment-required"];
  try {
    parsed = header ? JSON.parse(Buffer.from(header, "base64").toString("utf8")) : JSON.parse(answer.body);
  } catch {
    return { problem: header ? "The PAYMENT-REQUIRED header is not base64 JSON." : "There is no PAYMENT-REQUIRED header and the body is not JSON." };
  }
  const pr = obj(parsed);
  if (!pr || (pr.x402Version !== 1 && pr.x402Version !== 2)) return { problem: "The payment requirements carry no x402Version 1 or 2." };
  const accepts = Array.isArray(pr.accepts) ? pr.accepts : [];
  if (accepts.length === 0) return { problem: "accepts lists no payment option." };
  for (const [i, a] of accepts.entries()) {
    const problem = obj(a) ? requirementsProblem(a as Obj, pr.x402Version) : "it is not an object";
    if (problem) return { problem: `accepts[${i}]: ${problem}.` };
  }
  return { paymentRequired: pr };
}

/** Longest `maxTimeoutSeconds` the official client signs for (the validity window of what it signs). */
const CLIENT_MAX_TIMEOUT_SECONDS = 3600;

/**
 * Whether a payment against the option would be made and taken, and if not, the reason: first what the official
 * client refuses to sign (`malformed_requirement`: both version amounts; `max_timeout_exceeded`: a validity
 * window over an hour), then what this facilitator would refuse.
 */
function simulate(a: Obj): Schema<"x402ValidateSimulation"> {
  const rejected = (rejectionReason: string): Schema<"x402ValidateSimulation"> => ({ outcome: "rejected", rejectionReason });
  if (a.amount !== undefined && a.maxAmountRequired !== undefined) return rejected("malformed_requirement");
  if (Number(a.maxTimeoutSeconds) > CLIENT_MAX_TIMEOUT_SECONDS) return rejected("max_timeout_exceeded");
  const network = x402Network(String(a.network));
  if (a.scheme !== "exact" && !(a.scheme === "upto" && a.amount !== undefined)) return rejected("invalid_scheme");
  if (!network) return rejected("invalid_network");
  const scheme = a.scheme as "exact" | "upto";
  const extra = obj(a.extra) ?? {};
  if (paymentFlowProblem(scheme, network, extra)) return rejected("invalid_payment_requirements");
  if (network.family === "evm") {
    if (scheme === "upto") {
      if (!evmTokenByAddress(network.ledger, String(a.asset))) return rejected("asset_not_deployed_contract");
      const named = extra.facilitatorAddress;
      return named === undefined || String(named).toLowerCase() === FACILITATOR_EVM_ADDRESS.toLowerCase()
        ? { outcome: "accepted" }
        : rejected("upto_facilitator_mismatch");
    }
    return eip3009Domain(network.ledger, String(a.asset)) ? { outcome: "accepted" } : rejected("invalid_exact_evm_eip3009_not_supported");
  }
  if (a.asset !== solanaTokenBySymbol(network.ledger, "USDC")?.mint) return rejected("invalid_exact_solana_payload_mint_mismatch");
  if (scheme === "upto") {
    if (extra.feePayer !== FACILITATOR_FEE_PAYER.address) return rejected("facilitator_mismatch");
    const delay = extra.withdrawDelay;
    if (typeof extra.receiverAuthorizer !== "string" || typeof delay !== "number" || !Number.isInteger(delay) || delay <= 0) {
      return rejected("invalid_upto_svm_payment_requirements");
    }
    return { outcome: "accepted" };
  }
  if (extra.feePayer !== FACILITATOR_FEE_PAYER.address) return rejected("invalid_exact_solana_fee_payer_not_managed_by_facilitator");
  return { outcome: "accepted" };
}

const indexView = (ctx: HandlerContext, r: BazaarResource | undefined): Schema<"x402ValidateIndex"> | null =>
  r
    ? {
        active: r.active,
        lastCrawledAt: r.lastCrawledMs === undefined ? null : new Date(r.lastCrawledMs).toISOString(),
        ...(qualityOf(ctx, r.key) ? { quality: qualityOf(ctx, r.key) } : {}),
      }
    : null;

/**
 * The answer for a public host: the sandbox makes no request beyond loopback,
 * so the reachability check fails and says why. The index is left as it was:
 * nothing was crawled, and the endpoint itself may well be fine.
 */
function offline(ctx: HandlerContext, url: URL, listed: BazaarResource | undefined): HandlerResult<"validateX402Resource"> {
  return {
    status: 200,
    body: {
      valid: false,
      statusCode: null,
      x402Version: null,
      preflight: [
        {
          check: "reachable",
          passed: false,
          detail: `The sandbox is offline and cannot reach public hosts, so ${url.host} was not contacted; serve the resource on https://localhost:PORT or https://127.0.0.1:PORT to validate it here.`,
          severity: "required",
        },
      ],
      paymentRequirements: null,
      bazaarExtension: null,
      simulation: { outcome: "rejected", rejectionReason: "invalid_payment_requirements" },
      index: indexView(ctx, listed),
    },
  };
}

export const validateX402Resource: Handler<"validateX402Resource"> = Object.assign(
  async (req: HandlerRequest<"validateX402Resource">, ctx: HandlerContext): Promise<HandlerResult<"validateX402Resource">> => {
    const resource = req.body.resource;
    const method = req.body.method ?? "GET";
    const url = parseAbsoluteUrl(resource, "the resource");
    const listed = () => bazaarResources(ctx.store).find((r) => r.resource === resource);
    if (!isLoopbackUrl(url)) return offline(ctx, url, listed());
    const preflight: Schema<"x402ValidateCheck">[] = [];
    let answer: ProbeAnswer | undefined;
    try {
      answer = await probe(url, method);
      preflight.push({ check: "reachable", passed: true, detail: `Answered ${method} with HTTP ${answer.status}.`, severity: "required" });
    } catch (error) {
      preflight.push({ check: "reachable", passed: false, detail: `${url.host} did not answer: ${(error as Error).message}`, severity: "required" });
    }
    const status = answer?.status ?? null;
    if (answer) {
      const got402 = answer.status === 402;
      preflight.push({
        check: "returns_402",
        passed: got402,
        detail: got402 ? "Got 402 as expected." : `Got ${answer.status}; a paid endpoint answers an unpaid request with 402.`,
        expected: "402",
        actual: String(answer.status),
        severity: "required",
      });
    }
    const read = answer?.status === 402 ? readPaymentRequired(answer) : undefined;
    if (read)
      preflight.push({
        check: "parse",
        passed: "paymentRequired" in read,
        detail: "paymentRequired" in read ? "The payment requirements parse." : read.problem,
        severity: "required",
      });
    const pr = read && "paymentRequired" in read ? read.paymentRequired : undefined;
    const first = pr ? (pr.accepts as Obj[])[0]! : undefined;
    const bazaar = pr?.x402Version === 2 ? obj(obj(pr.extensions)?.bazaar) : undefined;
    const discovery =
      pr?.x402Version === 2
        ? bazaar
          ? readBazaarExtension(bazaar, pr.resource ?? { url: resource }, first!, 2)
          : undefined
        : first
          ? readV1Discovery(first)
          : undefined;
    if (pr) {
      const detail = !discovery
        ? "No bazaar extension: the endpoint will not be listed."
        : discovery.status === "success"
          ? "The bazaar extension validates against its schema."
          : discovery.rejectedReason;
      preflight.push({ check: "has_bazaar_extension", passed: discovery?.status === "success", detail, severity: "advisory" });
    }
    const valid = preflight.every((c) => c.severity !== "required" || c.passed === true) && pr !== undefined;
    // The crawl updates the index: listed when valid and described, delisted when broken.
    let indexed = listed();
    if (valid && discovery?.status === "success") indexed = catalogue(ctx, discovery.entry, true);
    else if (indexed) {
      indexed = { ...indexed, active: valid ? indexed.active : false, lastCrawledMs: ctx.clock.now() };
      bazaarResources(ctx.store).put(indexed.key, indexed);
    }
    return {
      status: 200,
      body: {
        valid,
        statusCode: status,
        x402Version: typeof pr?.x402Version === "number" ? pr.x402Version : null,
        preflight,
        // Checked by requirementsProblem against the contract's requirement shapes before it gets here.
        paymentRequirements: (first ?? null) as Schema<"x402PaymentRequirements"> | null,
        bazaarExtension: bazaar ?? null,
        simulation: first ? simulate(first) : { outcome: "rejected", rejectionReason: "invalid_payment_requirements" },
        index: indexView(ctx, indexed),
      },
    };
  },
  { outbound: true },
);
