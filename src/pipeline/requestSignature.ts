/**
 * Stage: X-Signature, for projects that registered request-signing keys (auth/requestSignature.ts). It applies to
 * requests made with one of the project's API keys, after the bearer token named the project; end users' requests
 * (their browser holds no project key) and payers' are not signed. Checked on the sandbox clock.
 */
import { createSignatureJtis, SIGNATURE_HEADER, type SignatureJtis, verifyRequestSignature } from "../auth/requestSignature.js";
import type { Clock } from "../clock.js";
import type { ProjectRegistry } from "../projects/projects.js";
import type { Exchange } from "./exchange.js";

export class RequestSignatureStage {
  private readonly jtis = new Map<string, SignatureJtis>();

  constructor(
    private readonly projects: ProjectRegistry,
    private readonly clock: Clock,
  ) {}

  async check(ex: Exchange): Promise<void> {
    if (ex.auth.kind !== "apiKey" || ex.projectId === undefined) return;
    const keys = this.projects.signingKeys(ex.projectId);
    if (keys.length === 0) return;
    let jtis = this.jtis.get(ex.projectId);
    if (!jtis) {
      jtis = createSignatureJtis();
      this.jtis.set(ex.projectId, jtis);
    }
    await verifyRequestSignature(
      ex.headers[SIGNATURE_HEADER],
      { method: ex.method, target: ex.target, rawBody: ex.rawBody },
      keys,
      Math.floor(this.clock.now() / 1000),
      jtis,
    );
  }
}
