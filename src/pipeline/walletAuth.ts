/**
 * Stage: X-Wallet-Auth on the operations that need it. With an API key the
 * token is signed with the project's wallet secret (a project created from an
 * unknown key has no secret the sandbox knows, so only its claims are checked
 * there). An end user acting with their own access token signs with a
 * Temporary Wallet Secret and names it in the body's `walletSecretId`.
 */
import type { KeyObject } from "node:crypto";
import { beginWalletSignatureCheck, createJtiRegistry, verifyWalletAuth, type JtiRegistry } from "../auth/walletToken.js";
import { apiError, shownValue } from "../errors/catalogue.js";
import type { ProjectRegistry } from "../projects/projects.js";
import type { EndUserAuthenticator } from "./authenticate.js";
import type { Exchange } from "./exchange.js";

export class WalletAuthStage {
  private readonly jtis = new Map<string, JtiRegistry>();

  constructor(
    private readonly projects: ProjectRegistry,
    private readonly endUsers?: Pick<EndUserAuthenticator, "walletKey">,
  ) {}

  /** Whether `ex` carries a wallet token its operation may check: worth beginning early (`begin`). */
  wants(ex: Exchange): boolean {
    return ex.operation!.walletAuth !== "none" && ex.headers["x-wallet-auth"] !== undefined;
  }

  /**
   * Hands the signature check of the request's wallet token, under the wallet secret of the project its API key
   * names, to the signature thread together with the bearer token's (one hand-off, not two). Nothing is decided
   * here: `check` runs every check in its order once the bearer token passed, and uses this answer only for the
   * same token and key.
   */
  begin(ex: Exchange, projectId: string): void {
    const token = ex.headers["x-wallet-auth"];
    const key = this.projects.walletKey(projectId);
    if (token !== undefined && key) ex.earlyWalletCheck = beginWalletSignatureCheck(token, key);
  }

  async check(ex: Exchange): Promise<void> {
    const op = ex.operation!;
    const token = ex.headers["x-wallet-auth"];
    if (op.walletAuth === "none" || ex.auth.kind === "none") return;
    if (ex.auth.kind === "endUser") return this.checkEndUser(ex, token);
    if (op.walletAuth === "optional" && token === undefined) return; // the domain decides (e.g. delegated signing)
    if (token === undefined) {
      throw apiError("unauthorized", `Missing X-Wallet-Auth header: ${op.operationId} must be signed with the project's wallet secret.`);
    }
    await this.verify(ex, token, this.projects.walletKey(ex.projectId!));
  }

  private async checkEndUser(ex: Exchange, token: string | undefined): Promise<void> {
    if (!this.endUsers) return;
    const op = ex.operation!;
    const body = ex.body as { walletSecretId?: unknown } | undefined;
    const walletSecretId = body && typeof body === "object" ? body.walletSecretId : undefined;
    if (typeof walletSecretId !== "string" || walletSecretId === "") {
      throw apiError(
        "invalid_request",
        `walletSecretId is required when the end user signs ${op.operationId} without delegation: the id of the Temporary Wallet Secret that signed X-Wallet-Auth.`,
      );
    }
    if (token === undefined) {
      throw apiError(
        "unauthorized",
        `Missing X-Wallet-Auth header: an end user signs ${op.operationId} with their Temporary Wallet Secret (${shownValue(walletSecretId)}).`,
      );
    }
    const resolved = this.endUsers.walletKey(ex.projectId!, ex.auth.endUserId!, walletSecretId);
    if ("problem" in resolved) throw apiError("unauthorized", resolved.problem);
    await this.verify(ex, token, resolved.key, `Temporary Wallet Secret ${shownValue(walletSecretId)}`);
  }

  private async verify(ex: Exchange, token: string, key: KeyObject | undefined, signer?: string): Promise<void> {
    const projectId = ex.projectId!;
    let registry = this.jtis.get(projectId);
    if (!registry) {
      registry = createJtiRegistry();
      this.jtis.set(projectId, registry);
    }
    await verifyWalletAuth(
      token,
      { method: ex.method, host: ex.host, redirectedFrom: ex.redirectedFrom, path: ex.fullPath },
      ex.rawBody.length === 0 ? undefined : ex.body,
      key,
      registry,
      {
        nowSeconds: Math.floor(Date.now() / 1000),
        signer,
        early: ex.earlyWalletCheck,
      },
    );
  }
}
