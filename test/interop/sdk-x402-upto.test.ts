/**
 * The upto scheme and the payment flows through the official client's x402
 * pieces: a resource server assembled as `createX402Server` assembles it (the
 * x402 resource server with the client's default schemes, exact and upto on
 * EVM and Solana) on `createCdpFacilitatorClient` pointed at the sandbox
 * starts with upto and upfront routes; payers are the client's own accounts
 * (`fromCdpEvmAccount`, `cdpSolanaAccountToSvmSigner`) paying with the
 * protocol's upto clients; the server charges less than the maximum.
 */
import type { CdpClient } from "@coinbase/cdp-sdk";
import { cdpSolanaAccountToSvmSigner, createCdpFacilitatorClient, fromCdpEvmAccount, getCdpDefaultSchemes } from "@coinbase/cdp-sdk/x402";
import { x402Client } from "@x402/core/client";
import { x402HTTPResourceServer, x402ResourceServer } from "@x402/core/server";
import type { Network, PaymentRequired, PaymentRequirements } from "@x402/core/types";
import { UptoEvmScheme } from "@x402/evm/upto/client";
import { UptoSvmScheme } from "@x402/svm/upto/client";
import { encodeFunctionData, erc20Abi } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSandbox, type Sandbox } from "cdp-sandbox";
import { call, fund, hostOf } from "#test/helpers/sandbox.js";
import { mintBearer } from "#test/helpers/tokens.js";
import { PERMIT2, USDC_BASE_SEPOLIA, USDC_SOLANA_DEVNET } from "#test/helpers/x402.js";
import { cdpClientFor } from "#test/helpers/cdpClient.js";

const BASE_SEPOLIA = "eip155:84532" as Network;
const DEVNET = "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1" as Network;
const MERCHANT = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed";

let sandbox: Sandbox;
let cdp: CdpClient;
let facilitator: ReturnType<typeof createCdpFacilitatorClient>;
let resourceServer: x402ResourceServer;
let solanaNode: string;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, seed: "sdk-x402-upto", validateResponses: true });
  const { apiKeyId, apiKeySecret } = sandbox.credentials;
  cdp = cdpClientFor(sandbox);
  facilitator = createCdpFacilitatorClient({ apiKeyId, apiKeySecret, baseUrl: `${sandbox.basePath}/v2/x402` });
  resourceServer = new x402ResourceServer(facilitator);
  for (const scheme of getCdpDefaultSchemes()) resourceServer.register(scheme.network as Network, scheme.server);
  const path = "/apikeys/v1/tokens/active";
  const bearer = await mintBearer(apiKeyId, apiKeySecret, { method: "GET", host: hostOf(sandbox), path });
  const nodeToken = ((await (await fetch(`${sandbox.url}${path}`, { headers: { authorization: `Bearer ${bearer}` } })).json()) as { id: string }).id;
  solanaNode = `${sandbox.url}/rpc/v1/solana-devnet/${nodeToken}`;
});
afterAll(() => sandbox.close());

const paymentRequired = (accepts: PaymentRequirements[]): PaymentRequired =>
  ({
    x402Version: 2,
    error: "Payment required",
    resource: { url: "https://meter.example.org/tokens", description: "Metered completions" },
    accepts,
  }) as PaymentRequired;

describe("a resource server assembled like createX402Server", () => {
  it("starts with upto routes on Base Sepolia and Solana devnet and an upfront exact route", async () => {
    const server = new x402HTTPResourceServer(resourceServer, {
      "GET /metered": {
        accepts: [
          { scheme: "upto", price: "$0.10", network: BASE_SEPOLIA, payTo: MERCHANT, maxTimeoutSeconds: 300 },
          { scheme: "upto", price: "$0.10", network: DEVNET, payTo: "9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM", maxTimeoutSeconds: 300 },
        ],
      },
      "GET /report": { accepts: { scheme: "exact", price: "$0.01", network: BASE_SEPOLIA, payTo: MERCHANT, extra: { paymentFlow: "upfront" } } },
    });
    await expect(server.initialize()).resolves.toBeUndefined();
  });
});

describe("upto paid by the official client's accounts", () => {
  it("EVM: a cdp.evm account's Permit2 authorization for $0.10 is verified, then settled for $0.04", async () => {
    await resourceServer.initialize();
    const account = await cdp.evm.createAccount();
    await fund(sandbox, { network: "base-sepolia", address: account.address, amount: "1000000000000000" });
    await fund(sandbox, { network: "base-sepolia", address: account.address, token: "USDC", amount: "1000000" });
    const approve = encodeFunctionData({ abi: erc20Abi, functionName: "approve", args: [PERMIT2, 1_000_000n] });
    await account.sendTransaction({ network: "base-sepolia", transaction: { to: USDC_BASE_SEPOLIA, data: approve } });

    const [requirements] = await resourceServer.buildPaymentRequirements({
      scheme: "upto",
      network: BASE_SEPOLIA,
      payTo: MERCHANT,
      price: "$0.10",
      maxTimeoutSeconds: 300,
    });
    expect(requirements).toMatchObject({ scheme: "upto", amount: "100000", extra: { assetTransferMethod: "permit2", facilitatorAddress: expect.any(String) } });
    const client = new x402Client().register(BASE_SEPOLIA, new UptoEvmScheme(fromCdpEvmAccount(account)));
    const payload = await client.createPaymentPayload(paymentRequired([requirements!]));

    expect(await resourceServer.verifyPayment(payload, requirements!)).toMatchObject({ isValid: true, payer: account.address });
    const settled = await resourceServer.settlePayment(payload, requirements!, undefined, undefined, { amount: "40000" });
    expect(settled).toMatchObject({ success: true, payer: account.address, network: BASE_SEPOLIA, amount: "40000" });
    const { balances } = await cdp.evm.listTokenBalances({ address: account.address, network: "base-sepolia" });
    expect(balances.find((b) => b.token.contractAddress.toLowerCase() === USDC_BASE_SEPOLIA.toLowerCase())?.amount.amount).toBe(960_000n);

    await expect(facilitator.settle(payload, { ...requirements!, amount: "100001" })).rejects.toMatchObject({
      errorReason: "invalid_upto_evm_payload_settlement_exceeds_amount",
    });
    await expect(facilitator.settle(payload, { ...requirements!, amount: "1000" })).rejects.toMatchObject({ errorReason: "permit2_invalid_nonce" });
  });

  it("Solana: a cdp.solana account opens a channel for $0.10; the server deposits it, then charges $0.035 and the rest comes back", async () => {
    await resourceServer.initialize();
    const account = await cdp.solana.createAccount();
    await fund(sandbox, { network: "solana-devnet", address: account.address, token: "USDC", amount: "1000000" });
    const payTo = (await cdp.solana.createAccount()).address;

    const [requirements] = await resourceServer.buildPaymentRequirements({ scheme: "upto", network: DEVNET, payTo, price: "$0.10", maxTimeoutSeconds: 300 });
    expect(requirements).toMatchObject({ scheme: "upto", amount: "100000", extra: { feePayer: expect.any(String), receiverAuthorizer: expect.any(String) } });
    const client = new x402Client().register(DEVNET, new UptoSvmScheme(cdpSolanaAccountToSvmSigner(account), { rpcUrl: solanaNode }));
    const payload = await client.createPaymentPayload(paymentRequired([requirements!]));

    // The escrow flow does not verify before the deposit; the facilitator still checks the open on its own.
    expect(await facilitator.verify(payload, requirements!)).toMatchObject({ isValid: true, payer: account.address });
    const deposit = await resourceServer.settlePayment(payload, requirements!, undefined, undefined, undefined, "before-handler");
    expect(deposit).toMatchObject({ success: true, amount: "100000" });
    const claim = await resourceServer.settlePayment(payload, requirements!, undefined, undefined, { amount: "35000" }, "after-handler");
    expect(claim).toMatchObject({ success: true, payer: account.address, network: DEVNET, amount: "35000" });

    const usdc = async (owner: string) =>
      (await call(sandbox, "GET", `/platform/v2/solana/token-balances/solana-devnet/${owner}`)).body.balances.find(
        (b: { token: { mintAddress: string } }) => b.token.mintAddress === USDC_SOLANA_DEVNET,
      )?.amount.amount;
    expect(await usdc(account.address)).toBe("965000");
    expect(await usdc(payTo)).toBe("35000");
    await expect(resourceServer.settlePayment(payload, requirements!, undefined, undefined, { amount: "35000" }, "after-handler")).rejects.toMatchObject({
      errorReason: "invalid_upto_svm_channel_state",
    });
  });
});
