/**
 * An end user buys crypto with Apple Pay: the server API's guest-checkout order (onramp/orders.ts) with the
 * buyer the platform already knows — the email and phone number the user signed in with (a phone number proven by
 * its sign-in counts as verified now) — and the user's id as partnerUserRef, so the developer finds the order with
 * the onramp API. The order then moves on the sandbox clock and delivers to the destination like any other.
 */
import type { AuthenticationMethod } from "../../wallet/records/endUsers.js";
import { apiError } from "../../errors/catalogue.js";
import { createOnrampOrder } from "./orders.js";
import type { Handler } from "../../wallet/types.js";
import { findEndUser } from "../../wallet/records/endUsers.js";

function contact(methods: AuthenticationMethod[]) {
  const email = methods.find((m): m is Extract<AuthenticationMethod, { type: "email" }> => m.type === "email")?.email;
  const phoneNumber = methods.find((m): m is Extract<AuthenticationMethod, { type: "sms" }> => m.type === "sms")?.phoneNumber;
  return { email, phoneNumber };
}

export const createEndUserApplePayOnrampOrder: Handler<"createEndUserApplePayOnrampOrder"> = async (req, ctx) => {
  const { userId } = req.pathParams;
  if (req.auth.kind === "endUser" && req.auth.endUserId !== userId)
    throw apiError("unauthorized", `The access token belongs to another end user, not ${userId}.`);
  const user = findEndUser(ctx.store, userId);
  const { email, phoneNumber } = contact(user.authenticationMethods);
  if (email === undefined || phoneNumber === undefined) {
    throw apiError(
      "invalid_request",
      `Apple Pay orders need the buyer's email and phone number: end user ${userId} has not signed in with ${[email === undefined ? "email" : "", phoneNumber === undefined ? "SMS" : ""].filter(Boolean).join(" and ")}.`,
    );
  }
  const { destination, payment, purchase, agreementAcceptedAt } = req.body;
  const created = await createOnrampOrder(
    {
      ...req,
      operationId: "createOnrampOrder",
      pathParams: {},
      query: {},
      body: {
        paymentMethod: "GUEST_CHECKOUT_APPLE_PAY",
        paymentCurrency: payment.currency,
        purchaseCurrency: purchase.currency,
        purchaseAmount: purchase.amount,
        destinationAddress: destination.address,
        destinationNetwork: destination.network,
        email,
        phoneNumber,
        phoneNumberVerifiedAt: ctx.clock.iso(),
        agreementAcceptedAt,
        partnerUserRef: userId,
      },
    },
    ctx,
  );
  if (created.status !== 201 || !created.body.paymentLink) throw apiError("internal_server_error", "The onramp order was not created.");
  const o = created.body.order;
  return {
    status: 201,
    body: {
      order: {
        orderId: o.orderId,
        payment: { total: o.paymentTotal, subtotal: o.paymentSubtotal, currency: o.paymentCurrency },
        purchase: { amount: o.purchaseAmount, currency: o.purchaseCurrency },
        fees: o.fees,
        exchangeRate: o.exchangeRate,
        destination: { address: o.destinationAddress, network: o.destinationNetwork },
        status: o.status,
        ...(o.txHash !== undefined ? { txHash: o.txHash } : {}),
        createdAt: o.createdAt,
        updatedAt: o.updatedAt,
        userId,
        // Every order of the sandbox is a test order: nothing is paid.
        isSandbox: true,
      },
      paymentLink: { url: created.body.paymentLink.url },
    },
  };
};
