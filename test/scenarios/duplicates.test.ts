/**
 * The duplicate-effect detector: an effect a project repeats within 10
 * minutes of sandbox time without its X-Idempotency-Key is marked on the
 * answer (X-Sandbox-Duplicate-Of) and in the journal, or refused with
 * strictRetries; a replay of the same key, a repeat the caller means, a
 * different effect or one after the window are not duplicates. Over HTTP, and
 * through the official client's retry loop with and without a key.
 */
import type { CdpClient } from "@coinbase/cdp-sdk";
import request from "supertest";
import { serializeTransaction } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "cdp-sandbox";
import { call, fund, withSandbox } from "#test/helpers/sandbox.js";
import { cdpClientFor } from "#test/helpers/cdpClient.js";

let sandbox: Sandbox;
let cdp: CdpClient;
beforeAll(async () => {
  sandbox = await withSandbox({ seed: "duplicates" });
  sandbox.clock.freeze(true);
  cdp = cdpClientFor(sandbox);
});
afterAll(() => sandbox.close());

const FAUCET = "/platform/v2/evm/faucet";
const faucet = (address: string, headers: Record<string, string> = {}) =>
  call(sandbox, "POST", FAUCET, { body: { network: "base-sepolia", address, token: "eth" }, headers });
const newAccount = async () => (await call(sandbox, "POST", "/platform/v2/evm/accounts", { body: {}, wallet: true })).body.address as `0x${string}`;
const duplicates = async () => (await call(sandbox, "GET", "/_sandbox/requests?duplicates=true")).body.requests as Array<Record<string, unknown>>;
const setSettings = (settings: Record<string, unknown>) =>
  call(sandbox, "PATCH", `/_sandbox/projects/${sandbox.credentials.projectId}`, { body: { settings } });

describe("the duplicate-effect detector", () => {
  it("marks a repeated faucet request without a key, names the first request, and lists it in the journal", async () => {
    const address = await newAccount();
    const first = await faucet(address);
    expect(first.status).toBe(200);
    expect(first.headers["x-sandbox-duplicate-of"]).toBeUndefined();
    const again = await faucet(address);
    expect(again.status).toBe(200); // the effect happens, as on the platform: twice the ETH
    expect(again.headers["x-sandbox-duplicate-of"]).toBe(first.headers["x-correlation-id"]);
    const third = await faucet(address);
    expect(third.headers["x-sandbox-duplicate-of"]).toBe(first.headers["x-correlation-id"]);
    const listed = await duplicates();
    expect(listed.map((r) => r.correlationId)).toEqual(expect.arrayContaining([again.headers["x-correlation-id"], third.headers["x-correlation-id"]]));
    expect(listed.some((r) => r.correlationId === first.headers["x-correlation-id"])).toBe(false);
  });

  it("does not mark a replay of the same key, a repeat the caller means, another effect, or one after the window", async () => {
    const address = await newAccount();
    expect((await faucet(address, { "X-Idempotency-Key": "faucet-1" })).status).toBe(200);
    const replay = await faucet(address, { "X-Idempotency-Key": "faucet-1" });
    expect(replay.headers["x-sandbox-idempotent-replay"]).toBe("true");
    expect(replay.headers["x-sandbox-duplicate-of"]).toBeUndefined();
    expect((await faucet(address, { "X-Sandbox-Allow-Repeat": "true" })).headers["x-sandbox-duplicate-of"]).toBeUndefined();
    expect((await faucet(await newAccount())).headers["x-sandbox-duplicate-of"]).toBeUndefined();
    sandbox.clock.advance(11 * 60 * 1000);
    expect((await faucet(address)).headers["x-sandbox-duplicate-of"]).toBeUndefined();
  });

  it("forgets effects once no request can repeat them any more, so the project keeps only the window's", async () => {
    const [a, b] = [await newAccount(), await newAccount()];
    await faucet(a);
    const effects = () => Object.keys(sandbox.exportState(sandbox.credentials.projectId).projects?.[0]?.records?._effects ?? {});
    expect(effects().some((f) => f.includes(a))).toBe(true);
    sandbox.clock.advance(10 * 60 * 1000 + 1);
    await faucet(b);
    expect(effects().some((f) => f.includes(a))).toBe(false);
    expect(effects().filter((f) => f.includes(b))).toHaveLength(1);
    // Within the window it is still a duplicate.
    expect((await faucet(b)).headers["x-sandbox-duplicate-of"]).toBeDefined();
  });

  it("refuses the repeat with 409 sandbox_duplicate_effect under strictRetries, and nothing changes", async () => {
    const address = await newAccount();
    expect((await faucet(address)).status).toBe(200);
    const balance = async () => (await call(sandbox, "GET", `/platform/v2/evm/token-balances/base-sepolia/${address}`)).body.balances[0].amount.amount;
    const before = await balance();
    expect((await setSettings({ strictRetries: true })).status).toBe(200);
    try {
      const refused = await faucet(address);
      expect(refused.status).toBe(409);
      expect(refused.body).toMatchObject({ errorType: "sandbox_duplicate_effect", errorMessage: expect.stringMatching(/strictRetries/) });
      expect(await balance()).toBe(before);
      // A repeat the caller means still goes through.
      expect((await faucet(address, { "X-Sandbox-Allow-Repeat": "true" })).status).toBe(200);
    } finally {
      await setSettings({ strictRetries: false });
    }
  });

  it("catches the retry after a 500 that came after the send", async () => {
    const address = await newAccount();
    const failed = await faucet(address, { "X-Sandbox-Scenario": "send-succeeds-then-500" });
    expect(failed.status).toBe(500);
    const retried = await faucet(address);
    expect(retried.status).toBe(200);
    expect(retried.headers["x-sandbox-duplicate-of"]).toBe(failed.headers["x-correlation-id"]);
  });
});

describe("a retry loop with the official client", () => {
  async function sendWithRetries(from: `0x${string}`, to: `0x${string}`, idempotencyKey?: string) {
    // The first attempt's answer is lost after the send (a 502 once the transaction went out); the loop retries.
    await request(sandbox.url)
      .post("/_sandbox/scenarios")
      .send({
        scenario: { name: "lost-answer", rules: [{ match: { operationId: "sendEvmTransaction" }, when: { nth: 1 }, error: "bad_gateway", phase: "after" }] },
      });
    const transaction = serializeTransaction({ to, value: 1000n, chainId: 84532, type: "eip1559" });
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        return await cdp.evm.sendTransaction({ address: from, network: "base-sepolia", transaction, idempotencyKey });
      } catch {
        // retry
      } finally {
        await request(sandbox.url).delete("/_sandbox/scenarios?name=lost-answer");
      }
    }
    throw new Error("the retry loop gave up");
  }

  it("is caught without an idempotency key, and is safe with one", async () => {
    const from = await newAccount();
    await fund(sandbox, { network: "base-sepolia", address: from, amount: "1000000000000000000" });
    const to = await newAccount();
    const before = (await duplicates()).length;
    await sendWithRetries(from, to);
    const caught = await duplicates();
    expect(caught.length).toBe(before + 1);
    expect(caught.at(-1)).toMatchObject({ operationId: "sendEvmTransaction", duplicateOf: expect.any(String) });
    // A signed send's key (the serialized transaction) is long: it is held as the operation and a hash.
    const keys = Object.keys(sandbox.exportState(sandbox.credentials.projectId).projects?.[0]?.records?._effects ?? {});
    expect(keys.filter((k) => k.startsWith("sendEvmTransaction "))).toEqual([expect.stringMatching(/^sendEvmTransaction sha256:[0-9a-f]{64}$/)]);
    expect(keys.every((k) => k.length <= 128)).toBe(true);
    await sendWithRetries(from, await newAccount(), "transfer-42"); // another payment, retried with its key
    expect((await duplicates()).length).toBe(before + 1);
  });
});
