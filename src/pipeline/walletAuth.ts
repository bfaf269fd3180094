/**
 * Stage: X-Wallet-Auth on the operations that need it. The token is signed
 * with the project's wallet secret; a project created from an unknown key has
 * no secret the sandbox knows, so only its claims are checked there.
 */
import { createJtiRegistry, verifyWalletAuth, type JtiRegistry } from "../auth/walletAuth.js";
import { apiError } from "../errors/catalogue.js";
import type { ProjectRegistry } from "../projects/projects.js";
import type { Exchange } from "./exchange.js";

export class WalletAuthStage {
  private readonly jtis = new Map<string, JtiRegistry>();

  constructor(private readonly projects: ProjectRegistry) {}

  async check(ex: Exchange): Promise<void> {
    const op = ex.operation!;
    const token = ex.headers["x-wallet-auth"];
    // End users sign X-Wallet-Auth with their own temporary wallet secrets, which the sandbox does not model.
    if (op.walletAuth === "none" || ex.auth.kind === "none" || ex.auth.kind === "endUser") return;
    if (op.walletAuth === "optional" && token === undefined) return; // the domain decides (e.g. delegated signing)
    if (token === undefined) {
      throw apiError("unauthorized", `Missing X-Wallet-Auth header: ${op.operationId} must be signed with the project's wallet secret.`);
    }
    const projectId = ex.projectId!;
    let registry = this.jtis.get(projectId);
    if (!registry) this.jtis.set(projectId, (registry = createJtiRegistry()));
    await verifyWalletAuth(
      token,
      { method: ex.method, host: ex.host, path: ex.fullPath },
      ex.rawBody.length === 0 ? undefined : ex.body,
      this.projects.walletKey(projectId),
      registry,
      { nowSeconds: Math.floor(Date.now() / 1000) },
    );
  }
}
