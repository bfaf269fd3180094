/**
 * What an end user's own client would obtain in sign-in flows the REST
 * contract does not cover: an access token (with its Temporary Wallet
 * Secret), a project-wide delegation grant, and an account-scoped one
 * without the end user's token and wallet JWT.
 */
import { accountScopeOf, createGrant } from "../wallet/end-users/accounts.js";
import { endUsers, findEndUser } from "../wallet/records/endUsers.js";
import { issueEndUserToken } from "../wallet/identity/tokens.js";
import { issueTemporaryWalletSecret } from "../wallet/identity/walletSecrets.js";
import { apiError } from "../errors/catalogue.js";
import { type AdminContext, type AdminHandler, callerProject, locking } from "./types.js";

export const issueSandboxEndUserToken: AdminHandler<"issueSandboxEndUserToken"> = locking("project", async (call, ctx) => {
  const projectId = callerProject(call, ctx);
  const userId = call.pathParams.userId;
  const tx = ctx.store.begin(projectId);
  if (!endUsers(tx).get(userId)) throw apiError("not_found", `End user ${userId} was not found in this project.`);
  const token = await issueEndUserToken(ctx.keys.endUserTokenSecret, { userId, projectId }, ctx.clock.now());
  // The end user's client signs X-Wallet-Auth with this and names it in walletSecretId.
  const secret = issueTemporaryWalletSecret(tx, ctx.random.walletSecrets, userId, Date.parse(token.expiresAt));
  await tx.commit();
  return { status: 201, body: { userId, ...token, ...secret } };
});

/** Creates a grant as the platform's own handler does (same checks, same webhook event), in one transaction. */
async function grant(call: { projectId?: string; pathParams: { userId: string } }, ctx: AdminContext, address: string | undefined, expiresAt: string) {
  const projectId = callerProject(call, ctx);
  const tx = ctx.store.begin(projectId);
  const handlerCtx = {
    keys: ctx.keys,
    clock: ctx.clock,
    random: ctx.random.grants,
    store: tx,
    project: { id: projectId, settings: tx.settings() },
    log: ctx.log,
  };
  const user = findEndUser(tx, call.pathParams.userId);
  const made = createGrant(handlerCtx, user, address === undefined ? undefined : accountScopeOf(user, address), expiresAt);
  await tx.commit();
  return made;
}

export const createSandboxProjectWideDelegation: AdminHandler<"createSandboxProjectWideDelegation"> = locking("project", async (call, ctx) => {
  const made = await grant(call, ctx, undefined, call.body.expiresAt);
  return { status: 201, body: { userId: made.userId, scope: "project", expiresAt: new Date(made.expiresAtMs).toISOString() } };
});

export const createSandboxAccountDelegation: AdminHandler<"createSandboxAccountDelegation"> = locking("project", async (call, ctx) => {
  const made = await grant(call, ctx, call.pathParams.address, call.body.expiresAt);
  return { status: 201, body: { userId: made.userId, scope: "account", address: made.address!, expiresAt: new Date(made.expiresAtMs).toISOString() } };
});
