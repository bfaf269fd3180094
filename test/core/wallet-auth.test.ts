import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "cdp-sandbox";
import { call, withSandbox } from "#test/helpers/sandbox.js";
import { recordingHandlers } from "#test/helpers/handlers.js";

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await withSandbox({ handlers: recordingHandlers() });
});
afterAll(() => sandbox.close());

const CREATE = "/platform/v2/evm/accounts";
const SIGN_TYPED = (address: string) => `/platform/v2/evm/accounts/${address}/sign/typed-data`;
const ADDRESS = "0x742d35Cc6634C0532925a3b844Bc454e4438f44e";

// A nested EIP-712 body with unicode, arrays, numbers and null: reqHash must be computed over its key-sorted form.
const typedData = {
  types: {
    EIP712Domain: [
      { name: "name", type: "string" },
      { name: "chainId", type: "uint256" },
    ],
    Mail: [
      { name: "contents", type: "string" },
      { name: "tags", type: "string[]" },
    ],
  },
  primaryType: "Mail",
  domain: { name: "Ünïcødé ✉️ 𝔐ail", chainId: 84532 },
  message: { contents: "héllo — 世界 🌍 </script> & \u2028", tags: ["a", "b"], zeta: null, amount: 1.5e21 },
};

describe("X-Wallet-Auth", () => {
  it("is required on operations whose contract requires it", async () => {
    const res = await call(sandbox, "POST", CREATE, { body: { name: "no-wallet" } });
    expect(res.status).toBe(401);
    expect(res.body.errorType).toBe("unauthorized");
    expect(res.body.errorMessage).toMatch(/X-Wallet-Auth/);
  });

  it("accepts a token whose reqHash covers a nested unicode body", async () => {
    const res = await call(sandbox, "POST", SIGN_TYPED(ADDRESS), { body: typedData, wallet: true });
    expect(res.status).toBe(200);
  });

  it("rejects a token whose reqHash was made for another body", async () => {
    const token = await call(sandbox, "POST", SIGN_TYPED(ADDRESS), { body: typedData, wallet: true });
    expect(token.status).toBe(200);
    const signedFor = { ...typedData, primaryType: "Mail" };
    const { mintWalletAuth } = await import("#test/helpers/tokens.js");
    const host = new URL(sandbox.url).host;
    const walletToken = await mintWalletAuth(sandbox.credentials.walletSecret, {
      method: "POST",
      host,
      path: SIGN_TYPED(ADDRESS),
      body: { ...signedFor, message: { ...typedData.message, contents: "something else" } },
    });
    const res = await call(sandbox, "POST", SIGN_TYPED(ADDRESS), { body: typedData, headers: { "X-Wallet-Auth": walletToken } });
    expect(res.status).toBe(401);
    expect(res.body.errorMessage).toMatch(/reqHash|body/i);
  });

  it("checks the official client's reqHash over a body of megabytes, hashed a piece per turn (pairs across the cuts)", async () => {
    const { generateWalletJwt } = await import("@coinbase/cdp-sdk/auth");
    const host = new URL(sandbox.url).host;
    // Long enough to be hashed in pieces of 262,144 characters, with a surrogate pair astride each cut.
    const contents = `${"x".repeat(262_143)}${"🌍".repeat(600_000)}`;
    const body = { ...typedData, message: { ...typedData.message, contents } };
    const token = (requestData: object) =>
      generateWalletJwt({
        walletSecret: sandbox.credentials.walletSecret,
        requestMethod: "POST",
        requestHost: host,
        requestPath: SIGN_TYPED(ADDRESS),
        requestData,
      });
    const accepted = await call(sandbox, "POST", SIGN_TYPED(ADDRESS), { body, headers: { "X-Wallet-Auth": await token(body) } });
    expect(accepted.status).toBe(200);
    const tampered = { ...body, message: { ...body.message, contents: `${contents.slice(0, -2)}🌎` } };
    const refused = await call(sandbox, "POST", SIGN_TYPED(ADDRESS), { body: tampered, headers: { "X-Wallet-Auth": await token(body) } });
    expect(refused.status).toBe(401);
    expect(refused.body.errorMessage).toMatch(/reqHash/);
  });

  it("accepts a token without reqHash, as the client sends on retries", async () => {
    const res = await call(sandbox, "POST", CREATE, { body: { name: "retry-1" }, wallet: { withReqHash: false } });
    expect(res.status).toBe(201);
  });

  it("rejects a replayed jti", async () => {
    const jti = randomBytes(16).toString("hex");
    const first = await call(sandbox, "POST", CREATE, { body: { name: "jti-1" }, wallet: { jti } });
    expect(first.status).toBe(201);
    const second = await call(sandbox, "POST", CREATE, { body: { name: "jti-1" }, wallet: { jti } });
    expect(second.status).toBe(401);
    expect(second.body.errorMessage).toMatch(/jti|replay/i);
  });

  it("rejects a token older than 60 s", async () => {
    const old = Math.floor(Date.now() / 1000) - 300;
    const res = await call(sandbox, "POST", CREATE, { body: { name: "old-1" }, wallet: { now: old } });
    expect(res.status).toBe(401);
    expect(res.body.errorMessage).toMatch(/expired|old|60/i);
  });

  it("rejects a token signed with another wallet secret", async () => {
    const other = await sandbox.createProject("other");
    const host = new URL(sandbox.url).host;
    const { mintWalletAuth } = await import("#test/helpers/tokens.js");
    const foreign = await mintWalletAuth(other.walletSecret, { method: "POST", host, path: CREATE, body: { name: "foreign" } });
    const res = await call(sandbox, "POST", CREATE, { body: { name: "foreign" }, headers: { "X-Wallet-Auth": foreign } });
    expect(res.status).toBe(401);
    expect(res.body.errorMessage).toMatch(/signature/i);
  });

  it("leaves a wallet token unused when the bearer token beside it has a bad signature", async () => {
    // Both signatures are checked together; the wallet token's one-time jti is spent only once the bearer passed.
    const { mintBearer, mintWalletAuth } = await import("#test/helpers/tokens.js");
    const host = new URL(sandbox.url).host;
    const { apiKeyId, apiKeySecret, walletSecret } = sandbox.credentials;
    const walletToken = await mintWalletAuth(walletSecret, { method: "POST", host, path: CREATE, body: { name: "bearer-first" } });
    const bearer = await mintBearer(apiKeyId, apiKeySecret, { method: "POST", host, path: CREATE });
    const last = bearer.at(-2) === "A" ? "B" : "A";
    const forged = `${bearer.slice(0, -2)}${last}${bearer.at(-1)}`;
    const refused = await call(sandbox, "POST", CREATE, {
      body: { name: "bearer-first" },
      headers: { Authorization: `Bearer ${forged}`, "X-Wallet-Auth": walletToken },
    });
    expect(refused.status).toBe(401);
    expect(refused.body.errorMessage).toMatch(/Bad signature/);
    const accepted = await call(sandbox, "POST", CREATE, { body: { name: "bearer-first" }, headers: { "X-Wallet-Auth": walletToken } });
    expect(accepted.status).toBe(201);
    const replayed = await call(sandbox, "POST", CREATE, { body: { name: "bearer-first" }, headers: { "X-Wallet-Auth": walletToken } });
    expect(replayed.status).toBe(401);
    expect(replayed.body.errorMessage).toMatch(/replayed/);
  });

  it("rejects a token signed for another path", async () => {
    const res = await call(sandbox, "POST", CREATE, {
      body: { name: "path-1" },
      wallet: { override: { claims: { uris: ["POST x/platform/v2/solana/accounts"] } } },
    });
    expect(res.status).toBe(401);
    expect(res.body.errorMessage).toMatch(/uris|host|path/i);
  });
});
