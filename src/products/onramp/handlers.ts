/** The Onramp area (8 operations, one of them an end user's Apple Pay order), by operationId. */
import type { Handlers } from "../../wallet/types.js";
import { createEndUserApplePayOnrampOrder } from "./endUserOrders.js";
import { getOnrampUserLimits, requestLimitsUpgrade } from "./limits.js";
import { createOnrampOrder, getOnrampOrderById } from "./orders.js";
import { createOnrampSession } from "./sessions.js";
import { initiateOnrampVerification, submitOnrampVerification } from "./verifications.js";

export const handlers: Handlers = {
  createOnrampOrder,
  getOnrampOrderById,
  createOnrampSession,
  getOnrampUserLimits,
  requestLimitsUpgrade,
  initiateOnrampVerification,
  submitOnrampVerification,
  createEndUserApplePayOnrampOrder,
};
