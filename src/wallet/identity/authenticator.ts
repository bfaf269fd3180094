/**
 * Who an end user's bearer token signs in, as the request pipeline asks it: the sandbox's own access token
 * (tokens.ts, issued by sign-in and by the admin API), else the developer's JWT for a project with custom
 * authentication (customAuth.ts), checked against the project the request names; and the key of the end user's
 * Temporary Wallet Secret that signs X-Wallet-Auth. The assembly builds one and hands it to the pipeline whole.
 */
import type { Clock } from "../../clock.js";
import type { Store } from "../../store/store.js";
import { customJwtEndUser } from "./customAuth.js";
import { checkEndUserToken } from "./tokens.js";
import { temporaryWalletKey } from "./walletSecrets.js";

/** The parts of a request that name its project: `projectID` in the query (the client's), or `{projectId}` in the path. */
interface NamedProject {
  query: Record<string, unknown>;
  pathParams: Record<string, string>;
}

export function endUserAuthenticator(deps: { store: Store; clock: Clock; tokenSecret: Uint8Array }) {
  return {
    /** The end user `token` signs in, or undefined when it is neither kind of token. */
    async authenticate(token: string, request: NamedProject): Promise<{ projectId: string; endUserId: string } | undefined> {
      const check = await checkEndUserToken(deps.tokenSecret, token, deps.clock.now());
      if (check.ok) return { projectId: check.claims.projectId, endUserId: check.claims.userId };
      const named = request.query.projectID ?? request.pathParams.projectId;
      return customJwtEndUser(deps.store, typeof named === "string" ? named : undefined, token, deps.clock.now());
    },
    /** The public key of an end user's Temporary Wallet Secret, or why it cannot sign (X-Wallet-Auth). */
    walletKey: (projectId: string, userId: string, walletSecretId: string) =>
      temporaryWalletKey(deps.store, projectId, userId, walletSecretId, deps.clock.now()),
  };
}
