/** Sign-In with Ethereum over HTTP: the EIP-4361 message, signatures checked with viem, smart wallets, expiry. */
import request from "supertest";
import { encodeAbiParameters, encodeFunctionData, hashMessage, hashTypedData, pad, parseAbi, serializeErc6492Signature } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSandbox, type Sandbox } from "cdp-sandbox";
import { cdpClientFor } from "#test/helpers/cdpClient.js";

let sandbox: Sandbox;
let projectId: string;
const auth = (p: string) => `/platform/v2/embedded-wallet-api/projects/${projectId}/auth/${p}`;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, seed: "end-user-sign-in-siwe", validateResponses: true });
  projectId = sandbox.credentials.projectId;
});
afterAll(() => sandbox.close());

describe("Sign-In with Ethereum", () => {
  it("verifies the EIP-4361 message's signature with viem and refuses another signer or another page's domain", async () => {
    const wallet = privateKeyToAccount(generatePrivateKey());
    const init = await request(sandbox.url)
      .post(auth("init"))
      .set("origin", "http://localhost:5173")
      .send({ type: "siwe", address: wallet.address, chainId: 8453, domain: "localhost:5173", uri: "http://localhost:5173/" });
    expect(init.status).toBe(200);
    expect(init.body.message).toContain(`Nonce: ${init.body.nonce}`);
    expect(init.body.message).toContain(`Expiration Time: ${init.body.expirationTime}`);
    const intruder = privateKeyToAccount(generatePrivateKey());
    const forged = await request(sandbox.url)
      .post(auth("verify/siwe"))
      .send({ flowId: init.body.flowId, signature: await intruder.signMessage({ message: init.body.message }) });
    expect(forged.status).toBe(400);
    expect(forged.body.errorType).toBe("invalid_signature");
    const ok = await request(sandbox.url)
      .post(auth("verify/siwe"))
      .send({ flowId: init.body.flowId, signature: await wallet.signMessage({ message: init.body.message }) });
    expect(ok.status).toBe(200);
    expect(ok.body.endUser.authenticationMethods).toEqual([{ type: "siwe", address: wallet.address }]);

    const elsewhere = await request(sandbox.url)
      .post(auth("init"))
      .set("origin", "http://localhost:5173")
      .send({ type: "siwe", address: wallet.address, chainId: 8453, domain: "evil.example", uri: "https://evil.example/" });
    expect(elsewhere.status).toBe(400);
  });

  it("verifies a smart wallet's ERC-1271 signature, plain or ERC-6492-wrapped, by its owner only", async () => {
    const cdp = cdpClientFor(sandbox);
    const owner = privateKeyToAccount(generatePrivateKey());
    const smart = await cdp.evm.createSmartAccount({ owner });
    const signAsWallet = async (signer: typeof owner, message: string) => {
      // What a Coinbase Smart Wallet's owner signs: the replay-safe EIP-712 wrapper of the message's hash.
      const replaySafe = hashTypedData({
        domain: { name: "Coinbase Smart Wallet", version: "1", chainId: 8453, verifyingContract: smart.address },
        types: { CoinbaseSmartWalletMessage: [{ name: "hash", type: "bytes32" }] },
        primaryType: "CoinbaseSmartWalletMessage",
        message: { hash: hashMessage(message) },
      });
      return encodeAbiParameters(
        [
          {
            type: "tuple",
            components: [
              { name: "ownerIndex", type: "uint8" },
              { name: "signatureData", type: "bytes" },
            ],
          },
        ],
        [{ ownerIndex: 0, signatureData: await signer.sign({ hash: replaySafe }) }],
      );
    };
    const start = () =>
      request(sandbox.url)
        .post(auth("init"))
        .send({ type: "siwe", address: smart.address, chainId: 8453, domain: "localhost:3000", uri: "http://localhost:3000/" });

    const stranger = await start();
    const forged = await signAsWallet(privateKeyToAccount(generatePrivateKey()), stranger.body.message);
    expect((await request(sandbox.url).post(auth("verify/siwe")).send({ flowId: stranger.body.flowId, signature: forged })).status).toBe(400);

    const plain = await start();
    const ok = await request(sandbox.url)
      .post(auth("verify/siwe"))
      .send({ flowId: plain.body.flowId, signature: await signAsWallet(owner, plain.body.message) });
    expect(ok.status).toBe(200);

    const wrapped = await start();
    const factoryData = encodeFunctionData({ abi: parseAbi(["function createAccount(bytes[] owners, uint256 nonce)"]), args: [[pad(owner.address)], 0n] });
    const signature = serializeErc6492Signature({
      address: "0xBA5ED110eFDBa3D005bfC882d75358ACBbB85842",
      data: factoryData,
      signature: await signAsWallet(owner, wrapped.body.message),
    });
    const again = await request(sandbox.url).post(auth("verify/siwe")).send({ flowId: wrapped.body.flowId, signature });
    expect(again.status).toBe(200);
    expect(again.body.endUser.userId).toBe(ok.body.endUser.userId);
  });

  it("refuses a signed message after its expiry", async () => {
    const wallet = privateKeyToAccount(generatePrivateKey());
    const init = await request(sandbox.url)
      .post(auth("init"))
      .send({ type: "siwe", address: wallet.address, chainId: 1, domain: "localhost:3000", uri: "http://localhost:3000/" });
    const signature = await wallet.signMessage({ message: init.body.message });
    sandbox.clock.advance(11 * 60_000);
    const res = await request(sandbox.url).post(auth("verify/siwe")).send({ flowId: init.body.flowId, signature });
    expect(res.status).toBe(400);
  });
});
