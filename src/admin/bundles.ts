/** x402 Bazaar curation: bundles of resources (CDP-curated on the platform, the developer's here). */
import { deleteBundle, putBundle } from "../products/x402/curation.js";
import { type AdminHandler, callerProject, locking } from "./types.js";

export const putSandboxX402Bundle: AdminHandler<"putSandboxX402Bundle"> = locking("project", async (call, ctx) => {
  const tx = ctx.store.begin(callerProject(call, ctx));
  const bundle = putBundle(tx, ctx.clock.now(), call.pathParams.slug, call.body);
  await tx.commit();
  return { status: 200, body: { slug: bundle.slug, name: bundle.name, description: bundle.description, resources: bundle.resources } };
});

export const deleteSandboxX402Bundle: AdminHandler<"deleteSandboxX402Bundle"> = locking("project", async (call, ctx) => {
  const tx = ctx.store.begin(callerProject(call, ctx));
  deleteBundle(tx, call.pathParams.slug);
  await tx.commit();
  return { status: 200, body: { deleted: call.pathParams.slug } };
});
