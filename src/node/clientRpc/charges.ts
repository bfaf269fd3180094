/**
 * OnchainKit's checkout methods on the client URL. `cdp_hydrateCharge` turns a charge the developer created
 * (admin API) into the payment intent for the payer; `cdp_createProductCharge` first creates a charge for one
 * of the project's products. The checkout then sends two calls — USDC `approve` to the Transfers contract and
 * its `transferTokenPreApproved` — and the charge settles when the second lands (products/shared/charges).
 */
import { chargeableNetwork, createCharge, hydrateCharge, payableCharge } from "../../products/shared/charges/charges.js";
import { commerceProducts } from "../../products/shared/charges/model.js";
import { RpcError } from "../jsonRpc.js";
import { addressField, type ClientRpcContext, invalidParams, paramObject } from "./context.js";

/** The kit reads -32601 as "invalid charge". */
const chargeNotFound = (what: string) => new RpcError(-32601, `not found: ${what}`);

function stringParam(p: Record<string, unknown>, field: string): string {
  const v = p[field];
  if (typeof v !== "string" || v.length === 0 || v.length > 200) throw invalidParams(`${field} must be a non-empty string`);
  return v;
}

/** params [{ sender, chargeId }] */
export function cdp_hydrateCharge(params: unknown[], ctx: ClientRpcContext) {
  const p = paramObject(params);
  const sender = addressField(p, "sender");
  const chargeId = stringParam(p, "chargeId");
  const charge = payableCharge(ctx.store, ctx.clock, chargeId);
  if (!charge || charge.network !== ctx.network) throw chargeNotFound(`charge ${chargeId} is not open for payment on ${ctx.network}`);
  return hydrateCharge(ctx.store, ctx.random, charge, sender);
}

/** params [{ sender, productId }] */
export function cdp_createProductCharge(params: unknown[], ctx: ClientRpcContext) {
  const p = paramObject(params);
  const sender = addressField(p, "sender");
  const productId = stringParam(p, "productId");
  const product = commerceProducts(ctx.store).get(productId);
  if (!product || product.network !== ctx.network || !chargeableNetwork(ctx.network)) throw chargeNotFound(`product ${productId} on ${ctx.network}`);
  const charge = createCharge(ctx.store, ctx.clock, ctx.random, {
    network: product.network,
    name: product.name,
    amount: BigInt(product.amount),
    recipient: product.recipient,
    productId,
  });
  return hydrateCharge(ctx.store, ctx.random, charge, sender);
}
