/**
 * Commerce charges have no operation in the platform's REST contract: OnchainKit reaches them through the node's
 * cdp_ methods (node/clientRpc/charges.ts) and the developer through the admin API (admin/charges.ts).
 */
import type { Handlers } from "../types.js";

export const handlers: Handlers = {};
