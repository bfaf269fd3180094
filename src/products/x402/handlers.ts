/** x402 Facilitator: every operation of the area, by operationId. */
import { afterMfa } from "../../wallet/end-users/mfa.js";
import type { Handlers } from "../../wallet/types.js";
import { getX402Bundle, listX402Bundles, listX402DiscoveryMerchant, listX402DiscoveryResources, searchX402Resources } from "./discovery.js";
import { signSolanaX402PaymentWithEndUserAccount } from "./endUserPayment.js";
import { settleX402Payment, supportedX402PaymentKinds, verifyX402Payment } from "./facilitator.js";
import { postX402DiscoveryMcp } from "./mcp.js";
import { validateX402Resource } from "./validate.js";

export const handlers: Handlers = {
  verifyX402Payment,
  settleX402Payment,
  supportedX402PaymentKinds,
  listX402DiscoveryResources,
  listX402DiscoveryMerchant,
  searchX402Resources,
  listX402Bundles,
  getX402Bundle,
  postX402DiscoveryMcp,
  validateX402Resource,
  // An end user's payment signature moves funds: it waits for a recent MFA verification like every signing.
  signSolanaX402PaymentWithEndUserAccount: afterMfa(signSolanaX402PaymentWithEndUserAccount),
};
