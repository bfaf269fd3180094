/** The sandbox clock: read it; set, advance, freeze or unfreeze it. Auth tokens never read it (they use the machine's clock). */
import { parseDuration } from "../clock.js";
import { apiError } from "../errors/catalogue.js";
import type { AdminContext, AdminHandler } from "./types.js";

const clockView = (ctx: AdminContext) => ({ now: ctx.clock.iso(), frozen: ctx.clock.frozen, offsetMs: ctx.clock.now() - Date.now() });

export const getSandboxClock: AdminHandler<"getSandboxClock"> = (_call, ctx) => ({ status: 200, body: clockView(ctx) });

export const setSandboxClock: AdminHandler<"setSandboxClock"> = ({ body }, ctx) => {
  const { set, advance, freeze } = body;
  if (set === undefined && advance === undefined && freeze === undefined) {
    throw apiError("invalid_request", 'Give one of set (ISO timestamp), advance (duration such as "15m") or freeze (boolean).');
  }
  const target = set === undefined ? undefined : Date.parse(set);
  if (target !== undefined && !Number.isFinite(target)) throw apiError("invalid_request", `set must be an ISO-8601 timestamp, got ${JSON.stringify(set)}.`);
  const step = advance === undefined ? undefined : parseDuration(advance);
  if (advance !== undefined && step === undefined) {
    throw apiError("invalid_request", `advance must be a duration such as "15m", "1h30m" or a whole number of ms, got ${JSON.stringify(advance)}.`);
  }
  // Everything is checked first; then the clock changes once per field, in the order freeze, set, advance.
  if (freeze !== undefined) ctx.clock.freeze(freeze);
  if (target !== undefined) ctx.clock.set(target);
  if (step !== undefined) ctx.clock.advance(step);
  return { status: 200, body: clockView(ctx) };
};
