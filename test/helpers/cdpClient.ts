/** The official client, signed in to a sandbox with its default project's credentials. */
import { CdpClient } from "@coinbase/cdp-sdk";
import type { Sandbox } from "cdp-sandbox";

export function cdpClientFor(sandbox: Sandbox): CdpClient {
  const { apiKeyId, apiKeySecret, walletSecret } = sandbox.credentials;
  return new CdpClient({ apiKeyId, apiKeySecret, walletSecret, basePath: sandbox.basePath });
}
