/** Payment methods: list and get the project's bank accounts (see model.ts for the seeded set). */
import { apiError } from "../../errors/catalogue.js";
import { paginate } from "../../wallet/shared/pagination.js";
import type { Handler, Handlers } from "../../wallet/types.js";
import { findPaymentMethod, paymentMethods, paymentMethodView } from "./model.js";

const listPaymentMethods: Handler<"listPaymentMethods"> = (req, ctx) => {
  const page = paginate(paymentMethods(ctx), req.query, "payment-methods");
  return { status: 200, body: { paymentMethods: page.items.map(paymentMethodView), ...(page.nextPageToken ? { nextPageToken: page.nextPageToken } : {}) } };
};

const getPaymentMethod: Handler<"getPaymentMethod"> = (req, ctx) => {
  const method = findPaymentMethod(ctx, req.pathParams.paymentMethodId);
  if (!method) throw apiError("not_found", `Payment method ${req.pathParams.paymentMethodId} was not found in this project.`);
  return { status: 200, body: paymentMethodView(method) };
};

export const handlers: Handlers = { listPaymentMethods, getPaymentMethod };
