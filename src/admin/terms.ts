/**
 * POST /_sandbox/terms-of-service: publish a Terms of Service version for the caller's project (bearer token's
 * project, else the default one), in one all-or-nothing store transaction like a platform request.
 */
import { publishTermsOfService } from "../products/customers/publishTerms.js";
import { type AdminHandler, callerProject, locking } from "./types.js";

export const publishSandboxTermsOfService: AdminHandler<"publishSandboxTermsOfService"> = locking("project", async (call, ctx) => {
  const tx = ctx.store.begin(callerProject(call, ctx));
  const version = publishTermsOfService({ store: tx, clock: ctx.clock, random: ctx.random.money }, call.body);
  await tx.commit();
  return { status: 201, body: version };
});
