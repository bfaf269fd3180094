/**
 * Publishing a Terms of Service version (sandbox-only, through the admin API): every customer is reviewed at
 * once, so a version required at once announces the capabilities it holds back, and a version with a deadline
 * schedules the review at which it starts to block (events.ts).
 */
import type { EmitContext } from "../../wallet/events/emit.js";
import { announceCapabilityChanges } from "./events.js";
import { customers } from "./model.js";
import { publishTerms, type TermsVersion } from "./terms.js";

export function publishTermsOfService(ctx: EmitContext, input: { versionId: string; deadline?: string; languages?: string[]; url?: string }): TermsVersion {
  const version = publishTerms(ctx.store, input);
  for (const c of customers(ctx.store).filter((r) => !r.deleted)) customers(ctx.store).put(c.customerId, announceCapabilityChanges(ctx, c, c));
  return version;
}
