/** The developer's server asks who an end user's access token (the sandbox's own) belongs to. */
import { apiError } from "../../errors/catalogue.js";
import { endUserView, findEndUser } from "../records/endUsers.js";
import type { Handler } from "../types.js";
import { checkEndUserToken } from "./tokens.js";

export const validateEndUserAccessToken: Handler<"validateEndUserAccessToken"> = async (req, ctx) => {
  const check = await checkEndUserToken(ctx.keys.endUserTokenSecret, req.body.accessToken, ctx.clock.now());
  if (!check.ok) {
    if (check.reason === "malformed") throw apiError("invalid_request", "accessToken is not a JWT.");
    throw apiError("unauthorized", check.reason === "expired" ? "The access token has expired." : "The access token was not issued for this sandbox.");
  }
  if (check.claims.projectId !== ctx.project.id) throw apiError("unauthorized", "The access token belongs to another project.");
  return { status: 200, body: endUserView(findEndUser(ctx.store, check.claims.userId)) };
};
