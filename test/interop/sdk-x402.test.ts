/**
 * The official client's x402 pieces against the sandbox's facilitator:
 * `createCdpFacilitatorClient` accepts a `baseUrl`, so supported/verify/
 * settle go through it; an EVM account's `signX402Payment` (signing through
 * the sandbox) and the protocol's own client (@x402/evm with a viem key)
 * both make payments the facilitator settles; a Solana account's
 * `signX402Payment` reads the mint from the sandbox's Solana RPC (named in
 * CDP_X402_RPC_URLS, as users point it at their own node) and makes a
 * payment the facilitator settles; the public discovery functions read the
 * Bazaar the settlement fed.
 */
import { type CdpClient, listX402DiscoveryMerchant, listX402DiscoveryResources, searchX402Resources } from "@coinbase/cdp-sdk";
import { createCdpFacilitatorClient } from "@coinbase/cdp-sdk/x402";
import { x402Client } from "@x402/core/client";
import type { PaymentRequired } from "@x402/core/types";
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSandbox, type Sandbox } from "cdp-sandbox";
import { call, fund, hostOf } from "#test/helpers/sandbox.js";
import { mintBearer } from "#test/helpers/tokens.js";
import { USDC_BASE_SEPOLIA, USDC_SOLANA_DEVNET, v2Requirements } from "#test/helpers/x402.js";
import { cdpClientFor } from "#test/helpers/cdpClient.js";

let sandbox: Sandbox;
let cdp: CdpClient;
let facilitator: ReturnType<typeof createCdpFacilitatorClient>;
const MERCHANT = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed";

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, seed: "sdk-x402", validateResponses: true });
  const { apiKeyId, apiKeySecret } = sandbox.credentials;
  cdp = cdpClientFor(sandbox);
  facilitator = createCdpFacilitatorClient({ apiKeyId, apiKeySecret, baseUrl: `${sandbox.basePath}/v2/x402` });
});
afterAll(() => sandbox.close());

const paymentRequired = (url: string, amount: string): PaymentRequired =>
  ({
    x402Version: 2,
    error: "Payment required",
    resource: { url, description: "Tide heights for a harbour", mimeType: "application/json" },
    accepts: [v2Requirements(MERCHANT, amount)],
    extensions: {
      bazaar: {
        info: { input: { type: "http", method: "GET", queryParams: { harbour: "Brest" } } },
        schema: { type: "object", properties: { input: { type: "object" } }, required: ["input"] },
      },
    },
  }) as unknown as PaymentRequired;

describe("createCdpFacilitatorClient pointed at the sandbox", () => {
  it("reads the supported kinds", async () => {
    const supported = await facilitator.getSupported();
    expect(supported.kinds.map((k) => k.network)).toContain("eip155:84532");
    expect(supported.extensions).toContain("bazaar");
  });

  it("verifies and settles a payment made by the protocol's own EVM client, then refuses it twice", async () => {
    const payer = privateKeyToAccount(generatePrivateKey());
    await fund(sandbox, { network: "base-sepolia", address: payer.address, token: "USDC", amount: "100000" });
    const client = registerExactEvmScheme(new x402Client(), { signer: payer });
    const required = paymentRequired("https://tides.example.org/v1/forecast", "40000");
    const payload = await client.createPaymentPayload(required);
    const verified = await facilitator.verify(payload, required.accepts[0]!);
    expect(verified).toMatchObject({ isValid: true, payer: payer.address });
    const settled = await facilitator.settle(payload, required.accepts[0]!);
    expect(settled).toMatchObject({ success: true, payer: payer.address, network: "eip155:84532" });
    await expect(facilitator.settle(payload, required.accepts[0]!)).rejects.toMatchObject({ errorReason: "invalid_exact_evm_nonce_already_used" });
    const { balances } = await cdp.evm.listTokenBalances({ address: payer.address, network: "base-sepolia" });
    expect(balances.find((b) => b.token.contractAddress.toLowerCase() === USDC_BASE_SEPOLIA.toLowerCase())?.amount.amount).toBe(60000n);
  });
});

describe("cdp.evm accounts pay with signX402Payment", () => {
  it("signs through the sandbox a payment its facilitator settles, and the Bazaar lists the resource", async () => {
    const account = await cdp.evm.createAccount();
    await account.requestFaucet({ network: "base-sepolia", token: "usdc" });
    const required = paymentRequired("https://harbour.example.org/tides", "250000");
    const payload = await account.signX402Payment(required, 0);
    expect(payload).toMatchObject({ x402Version: 2, accepted: required.accepts[0] });
    const settled = await facilitator.settle(payload, required.accepts[0]!);
    expect(settled).toMatchObject({ success: true, payer: account.address });

    const listed = await listX402DiscoveryResources();
    expect(listed.items.map((i) => i.resource)).toContain("https://harbour.example.org/tides");
    const found = await searchX402Resources({ query: "harbour" });
    expect(found.resources.map((r) => r.resource)).toContain("https://harbour.example.org/tides");
    const merchant = await listX402DiscoveryMerchant({ payTo: MERCHANT });
    expect(merchant.resources.length).toBeGreaterThanOrEqual(1);
  });
});

describe("cdp.solana accounts pay with signX402Payment", () => {
  const DEVNET = "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1";
  const saved = process.env.CDP_X402_RPC_URLS;
  afterAll(() => {
    if (saved === undefined) delete process.env.CDP_X402_RPC_URLS;
    else process.env.CDP_X402_RPC_URLS = saved;
  });

  it("reads the mint from the sandbox's Solana RPC and signs a payment the facilitator settles", async () => {
    const path = "/apikeys/v1/tokens/active";
    const bearer = await mintBearer(sandbox.credentials.apiKeyId, sandbox.credentials.apiKeySecret, { method: "GET", host: hostOf(sandbox), path });
    const nodeToken = ((await (await fetch(`${sandbox.url}${path}`, { headers: { authorization: `Bearer ${bearer}` } })).json()) as { id: string }).id;
    process.env.CDP_X402_RPC_URLS = JSON.stringify({ [DEVNET]: `${sandbox.url}/rpc/v1/solana-devnet/${nodeToken}` });

    const account = await cdp.solana.createAccount();
    await fund(sandbox, { network: "solana-devnet", address: account.address, token: "USDC", amount: "1000000" });
    const feePayer = (await call(sandbox, "GET", "/platform/v2/x402/supported")).body.signers["solana:*"][0];
    const merchant = (await cdp.solana.createAccount()).address;
    const requirements = {
      scheme: "exact",
      network: DEVNET,
      asset: USDC_SOLANA_DEVNET,
      amount: "300000",
      payTo: merchant,
      maxTimeoutSeconds: 60,
      extra: { feePayer },
    };
    const required = {
      x402Version: 2,
      error: "Payment required",
      resource: { url: "https://harbour.example.org/buoys", description: "Buoy readings", mimeType: "application/json" },
      accepts: [requirements],
    } as unknown as PaymentRequired;

    const payload = await account.signX402Payment(required, 0);
    expect(payload).toMatchObject({ x402Version: 2, accepted: requirements, payload: { transaction: expect.any(String) } });
    expect(await facilitator.verify(payload, required.accepts[0]!)).toMatchObject({ isValid: true, payer: account.address });
    expect(await facilitator.settle(payload, required.accepts[0]!)).toMatchObject({ success: true, payer: account.address, network: DEVNET });
    const balances = (await call(sandbox, "GET", `/platform/v2/solana/token-balances/solana-devnet/${merchant}`)).body.balances;
    expect(balances.find((b: { token: { mintAddress: string } }) => b.token.mintAddress === USDC_SOLANA_DEVNET).amount.amount).toBe("300000");
  });
});
