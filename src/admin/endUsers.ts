/**
 * What an end user's own client would obtain in sign-in flows the REST
 * contract does not cover: an access token (with its Temporary Wallet
 * Secret) and a project-wide delegation grant.
 */
import { createGrant } from "../domains/end-users/accounts.js";
import { endUsers, findEndUser } from "../domains/end-users/model.js";
import { issueEndUserToken } from "../domains/end-users/tokens.js";
import { issueTemporaryWalletSecret } from "../domains/end-users/walletSecrets.js";
import { apiError } from "../errors/catalogue.js";
import { type AdminHandler, callerProject, locking } from "./types.js";

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

export const createSandboxProjectWideDelegation: AdminHandler<"createSandboxProjectWideDelegation"> = locking("project", async (call, ctx) => {
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
  const grant = createGrant(handlerCtx, findEndUser(tx, call.pathParams.userId), undefined, call.body.expiresAt);
  await tx.commit();
  return { status: 201, body: { userId: grant.userId, scope: "project", expiresAt: new Date(grant.expiresAtMs).toISOString() } };
});
