/** x402 Facilitator: every operation of the area, by operationId. */
import type { HandlerMap } from "../types.js";
import { discoveryHandlers } from "./discovery.js";
import { facilitatorHandlers } from "./facilitator.js";
import { mcpHandlers } from "./mcp.js";
import { validateHandlers } from "./validate.js";

export const x402Handlers: HandlerMap = { ...facilitatorHandlers, ...discoveryHandlers, ...mcpHandlers, ...validateHandlers };
