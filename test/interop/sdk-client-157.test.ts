/**
 * What client 1.57 added, called through @coinbase/cdp-sdk's generated API (the module CdpClient configures, so
 * requests carry the client's own tokens and wallet auth): Solana message signing with `encoding: base64`
 * (the signature checked with @noble/curves), the customer requirements preview, a webhook subscription to the
 * health events of a service, and policies at the 100-rule limit.
 */
import { ed25519 } from "@noble/curves/ed25519.js";
import type { CdpClient } from "@coinbase/cdp-sdk";
import { getBase58Encoder } from "@solana/kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSandbox, type Sandbox } from "cdp-sandbox";
import type { CdpOpenApiClient as GeneratedClient } from "../../node_modules/@coinbase/cdp-sdk/_types/openapi-client/index.js";
import type * as CustomersApi from "../../node_modules/@coinbase/cdp-sdk/_types/openapi-client/generated/customers/customers.js";
import { cdpClientFor } from "#test/helpers/cdpClient.js";

// The package does not export its generated client by name; this is the very module CdpClient configures.
const generatedPath = "../../node_modules/@coinbase/cdp-sdk/_esm/openapi-client/index.js";
const { CdpOpenApiClient: api } = (await import(generatedPath)) as { CdpOpenApiClient: typeof GeneratedClient };
// The customers operations are not in CdpOpenApiClient; their module calls the same configured HTTP client.
const customersPath = "../../node_modules/@coinbase/cdp-sdk/_esm/openapi-client/generated/customers/customers.js";
const customers = (await import(customersPath)) as typeof CustomersApi;

let sandbox: Sandbox;
let cdp: CdpClient;
beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, seed: "sdk-client-157", validateResponses: true });
  cdp = cdpClientFor(sandbox);
});
afterAll(() => sandbox.close());

const bytesOf = (base58: string) => new Uint8Array(getBase58Encoder().encode(base58));

describe("@coinbase/cdp-sdk 1.57 additions", () => {
  it("signs the decoded bytes of a base64 message (signSolanaMessage with encoding base64)", async () => {
    const account = await cdp.solana.createAccount();
    const raw = new Uint8Array([0xde, 0xad, 0x00, 0xbe, 0xef]);
    const { signature } = await api.signSolanaMessage(account.address, { message: Buffer.from(raw).toString("base64"), encoding: "base64" });
    expect(ed25519.verify(bytesOf(signature), raw, bytesOf(account.address))).toBe(true);
    await expect(api.signSolanaMessage(account.address, { message: "not base64!", encoding: "base64" })).rejects.toMatchObject({
      statusCode: 400,
      errorType: "invalid_request",
    });
  });

  it("previews the Terms of Service requirement (getCustomerRequirements)", async () => {
    const preview = await customers.getCustomerRequirements({
      customerType: "individual",
      capabilities: ["custodyCrypto", "transferCrypto"],
      countryCode: "US",
    });
    expect(preview.tos).toMatchObject({ status: "due", impact: ["custodyCrypto"], tosVersions: [{ versionId: "us_individual_2026-05-29" }] });
    await expect(customers.getCustomerRequirements({ customerType: "individual", capabilities: ["custodyCrypto"], countryCode: "FR" })).rejects.toMatchObject({
      statusCode: 400,
      errorType: "invalid_request",
    });
  });

  it("subscribes to a service's health events with the service label", async () => {
    const sub = await api.createWebhookSubscription({
      eventTypes: ["health.status.updated", "health.maintenance.scheduled"],
      isEnabled: true,
      target: { url: "https://example.com/health" },
      labels: { service: "webhooks" },
    });
    expect(sub).toMatchObject({ eventTypes: ["health.status.updated", "health.maintenance.scheduled"], labels: { service: "webhooks" } });
  });

  it("creates a policy of 100 rules and refuses one of 101", async () => {
    const rules = (n: number) =>
      Array.from({ length: n }, (_, i) => ({
        action: "reject" as const,
        operation: "signEvmTransaction" as const,
        criteria: [{ type: "ethValue" as const, ethValue: String(i), operator: ">" as const }],
      }));
    const policy = await api.createPolicy({ scope: "account", rules: rules(100) });
    expect(policy.rules).toHaveLength(100);
    await expect(api.createPolicy({ scope: "account", rules: rules(101) })).rejects.toMatchObject({ statusCode: 400, errorType: "invalid_request" });
  });
});
