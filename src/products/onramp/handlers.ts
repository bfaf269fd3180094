/** The Onramp area (7 operations), by operationId. */
import type { Handlers } from "../../wallet/types.js";
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
};
