/** The Onramp area (7 operations), by operationId. */
import type { HandlerMap } from "../types.js";
import { getOnrampUserLimits, requestLimitsUpgrade } from "./limits.js";
import { orderHandlers } from "./orders.js";
import { sessionHandlers } from "./sessions.js";
import { initiateOnrampVerification, submitOnrampVerification } from "./verifications.js";

export const onrampHandlers: HandlerMap = {
  ...orderHandlers,
  ...sessionHandlers,
  getOnrampUserLimits,
  requestLimitsUpgrade,
  initiateOnrampVerification,
  submitOnrampVerification,
};
