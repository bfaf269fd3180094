/**
 * Commerce charges and products for OnchainKit's checkout (products/shared/charges): the developer creates a charge (or
 * a product each checkout charges for) here, the kit hydrates and pays it through the node, and the list shows
 * where each one stands on the sandbox clock.
 */
import { chargeableNetwork, chargeView, createCharge } from "../products/shared/charges/charges.js";
import { charges, commerceProducts } from "../products/shared/charges/model.js";
import { apiError } from "../errors/catalogue.js";
import { pageOf } from "./paging.js";
import { type AdminHandler, callerProject, locking } from "./types.js";

function checkTerms(body: { network: string; amount: string }) {
  if (!chargeableNetwork(body.network))
    throw apiError("invalid_request", `network ${body.network} has no USDC in the sandbox's token table; charges are paid in USDC.`);
  if (BigInt(body.amount) === 0n) throw apiError("invalid_request", "amount must be greater than 0 (USDC in its smallest unit).");
}

export const listSandboxCharges: AdminHandler<"listSandboxCharges"> = locking("project", (call, ctx) => {
  const tx = ctx.store.begin(callerProject(call, ctx));
  const { offset, limit } = pageOf(call.query);
  const page = charges(tx).page(offset, limit, { descending: true });
  const now = ctx.clock.now();
  return { status: 200, body: { total: page.total, offset, items: page.items.map((c) => chargeView(c, now)) } };
});

export const createSandboxCharge: AdminHandler<"createSandboxCharge"> = locking("project", async (call, ctx) => {
  checkTerms(call.body);
  const tx = ctx.store.begin(callerProject(call, ctx));
  const charge = createCharge(tx, ctx.clock, ctx.random.money, {
    network: call.body.network,
    name: call.body.name,
    amount: BigInt(call.body.amount),
    recipient: call.body.recipient as `0x${string}`,
  });
  await tx.commit();
  return { status: 201, body: chargeView(charge, ctx.clock.now()) };
});

export const putSandboxCommerceProduct: AdminHandler<"putSandboxCommerceProduct"> = locking("project", async (call, ctx) => {
  checkTerms(call.body);
  const tx = ctx.store.begin(callerProject(call, ctx));
  const { productId } = call.pathParams;
  const { network, name, amount, recipient } = call.body;
  commerceProducts(tx).put(productId, { productId, network, name, amount, recipient: recipient as `0x${string}`, createdAt: ctx.clock.iso() });
  await tx.commit();
  return { status: 200, body: { productId, network, name, amount, recipient } };
});
