/**
 * The facilitator's settlements are its transactions on the chain, numbered as a node numbers them: nonce 0, 1, …,
 * and the node's eth_getTransactionCount agrees with the transactions it serves.
 */
import request from "supertest";
import { createPublicClient, http, type PublicClient } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { baseSepolia } from "viem/chains";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "cdp-sandbox";
import { call, fund, hostOf, withSandbox } from "#test/helpers/sandbox.js";
import { mintBearer } from "#test/helpers/tokens.js";
import { signAuthorization, v2Body, v2Requirements } from "#test/helpers/x402.js";
import { FACILITATOR_EVM_ADDRESS } from "./networks.js";

let sandbox: Sandbox;
let node: PublicClient;
beforeAll(async () => {
  sandbox = await withSandbox({ seed: "facilitator-nonce" });
  const path = "/apikeys/v1/tokens/active";
  const token = await mintBearer(sandbox.credentials.apiKeyId, sandbox.credentials.apiKeySecret, { method: "GET", host: `http://${hostOf(sandbox)}`, path });
  const id = (await request(sandbox.url).get(path).set("Authorization", `Bearer ${token}`)).body.id;
  node = createPublicClient({ chain: baseSepolia, transport: http(`${sandbox.url}/rpc/v1/base-sepolia/${id}`) }) as PublicClient;
});
afterAll(() => sandbox.close());

describe("the facilitator's transactions", () => {
  it("carry nonces 0, 1, … and the node counts them", async () => {
    const merchant = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed";
    const hashes: `0x${string}`[] = [];
    for (let i = 0; i < 2; i++) {
      const payer = privateKeyToAccount(generatePrivateKey());
      await fund(sandbox, { network: "base-sepolia", address: payer.address, token: "USDC", amount: "1000000" });
      const payload = await signAuthorization(payer, { to: merchant, value: "1000", nowSeconds: Math.floor(sandbox.clock.now() / 1000) });
      const settled = await call(sandbox, "POST", "/platform/v2/x402/settle", { body: v2Body(v2Requirements(merchant, "1000"), payload) });
      expect(settled.status, settled.text).toBe(200);
      hashes.push(settled.body.transaction);
    }
    const nonces = await Promise.all(hashes.map(async (hash) => (await node.getTransaction({ hash })).nonce));
    expect(nonces).toEqual([0, 1]);
    expect(await node.getTransactionCount({ address: FACILITATOR_EVM_ADDRESS })).toBe(2);
  });
});
