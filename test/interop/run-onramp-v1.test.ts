/**
 * OnchainKit's Fund helpers (`@coinbase/onchainkit/fund`) in a program under the register hook: they call
 * Onramp v1 on the platform's node host with a production client key, and the sandbox's project answers (the
 * hook sends them with the project's node token). Skips until `npm run build` has run.
 */
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Sandbox, startSandbox } from "cdp-sandbox";
import { BUILD_TIMEOUT_MS, ensureBuilt, programPath, registerPath, startNode } from "#test/helpers/cli.js";
import { createOrder, orderBody } from "#test/helpers/onramp.js";

describe("OnchainKit's Onramp v1 calls under the register hook", () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    await ensureBuilt();
    sandbox = await startSandbox({ port: 0, seed: "run-onramp-v1" });
  }, BUILD_TIMEOUT_MS);
  afterAll(() => sandbox.close());

  it("are answered by the sandbox's onramp, camel-cased by the kit", async () => {
    expect((await createOrder(sandbox, orderBody(sandbox, { partnerUserRef: "kit-user" }))).status).toBe(201);
    const env = {
      CDP_SANDBOX_BASE_PATH: sandbox.basePath,
      CDP_API_KEY_ID: sandbox.credentials.apiKeyId,
      CDP_API_KEY_SECRET: sandbox.credentials.apiKeySecret,
      CDP_WALLET_SECRET: sandbox.credentials.walletSecret,
      CDP_SANDBOX_PROJECT_ID: "",
      DISABLE_CDP_USAGE_TRACKING: "true",
      DISABLE_CDP_ERROR_REPORTING: "true",
    };
    const args = ["--import", pathToFileURL(registerPath).href, programPath("onchainkit-onramp.mjs")];
    const { code, stdout, stderr } = await startNode(args, { env, timeoutMs: 60_000 }).finished;
    expect(code, stderr).toBe(0);
    const result = JSON.parse(stdout.trim().split("\n").at(-1)!);
    expect(result.config.countries[0]).toMatchObject({ id: "US", subdivisions: ["NY"] });
    const usdc = result.options.purchaseCurrencies.find((c: { id: string }) => c.id === "USDC");
    expect(usdc.networks.map((n: { name: string }) => n.name)).toEqual(["ethereum"]);
    expect(result.quote).toMatchObject({
      paymentTotal: { value: "50.00", currency: "USD" },
      purchaseAmount: { currency: "USDC" },
      quoteId: expect.any(String),
    });
    expect(result.transactions).toMatchObject({ totalCount: "1", transactions: [{ userId: "kit-user", purchaseCurrency: "USDC" }] });
  });
});
