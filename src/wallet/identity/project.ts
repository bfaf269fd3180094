/**
 * What every embedded-wallet sign-in operation checks first: the project in
 * the path is the one the request acts on (an unknown one is 404), the method
 * is enabled for it, and who (if anyone) is already signed in.
 */
import { apiError } from "../../errors/catalogue.js";
import type { HandlerContext, RequestAuth } from "../types.js";
import { embeddedWalletSettings, type EmbeddedWalletSettings, type SignInMethod } from "./settings.js";

export function projectSettings(projectId: string, ctx: HandlerContext): EmbeddedWalletSettings {
  if (projectId !== ctx.project.id) throw apiError("not_found", `Project ${projectId} was not found (or the access token is of another project).`);
  return embeddedWalletSettings(ctx.project.settings);
}

export function assertMethodEnabled(settings: EmbeddedWalletSettings, method: SignInMethod): void {
  if (!settings.signInMethods.includes(method)) {
    throw apiError("forbidden", `Sign-in by ${method} is not enabled for this project (settings.embeddedWallets.signInMethods).`);
  }
}

/** The signed-in end user a new method is linked to, when the request carries their access token. */
export const signedInUser = (auth: RequestAuth): string | undefined => (auth.kind === "endUser" ? auth.endUserId : undefined);

/** `http://host:port` the client reached the sandbox at, for links the answer gives back. */
export const origin = (headers: Record<string, string>): string => `http://${headers.host ?? "127.0.0.1"}`;
