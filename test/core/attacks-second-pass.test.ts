/**
 * The attacks of the second hardening pass, over HTTP: each one was answered
 * wrongly once (a 500, a body that slipped past its wallet token, a request
 * that held the event loop) and is now refused in the platform's error body,
 * changing nothing.
 */
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "cdp-sandbox";
import { call, endUserSession, nodeUrlFor, withSandbox } from "#test/helpers/sandbox.js";

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await withSandbox({ seed: "attacks-second-pass" });
});
afterAll(() => sandbox.close());

const expectClientError = (res: { status: number; body: Record<string, unknown> }, status: number, errorType: string) => {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body).toMatchObject({ errorType, errorMessage: expect.any(String), correlationId: expect.any(String), errorLink: expect.any(String) });
};

/** An end user signed in by email with one Solana account: the account's address and the user's session. */
async function endUserWithSolanaAccount(userId: string, email: string) {
  await call(sandbox, "POST", "/platform/v2/end-users", {
    body: { userId, authenticationMethods: [{ type: "email", email }], solanaAccount: {} },
    wallet: true,
  });
  const address = (await call(sandbox, "GET", `/platform/v2/end-users/${userId}`)).body.solanaAccounts[0] as string;
  return { address, session: await endUserSession(sandbox, userId) };
}

describe("Solana transactions that do not decode", () => {
  // "uqvcmpxpfiii" is valid base64 whose bytes parse as a transaction's signature section but not as a message.
  const GARBAGE = ["uqvcmpxpfiii", "AQID", "AAAA", "gAEB"];

  it("are refused with 400 malformed_transaction by the developer's sign and send", async () => {
    const { address } = (await call(sandbox, "POST", "/platform/v2/solana/accounts", { body: {}, wallet: true })).body;
    for (const transaction of GARBAGE) {
      expectClientError(
        await call(sandbox, "POST", `/platform/v2/solana/accounts/${address}/sign/transaction`, { body: { transaction }, wallet: true }),
        400,
        "malformed_transaction",
      );
      expectClientError(
        await call(sandbox, "POST", "/platform/v2/solana/accounts/send/transaction", { body: { network: "solana-devnet", transaction }, wallet: true }),
        400,
        "malformed_transaction",
      );
    }
  });

  it("are refused with 400 malformed_transaction by the end user's sign and send", async () => {
    const userId = "garbage-tx-user";
    const { address, session } = await endUserWithSolanaAccount(userId, "garbage@example.com");
    const EW = `/platform/v2/embedded-wallet-api/end-users/${userId}/solana`;
    for (const transaction of GARBAGE) {
      expectClientError(
        await call(sandbox, "POST", `${EW}/sign/transaction`, { body: { address, transaction }, endUser: session }),
        400,
        "malformed_transaction",
      );
      expectClientError(
        await call(sandbox, "POST", `${EW}/send/transaction`, { body: { address, network: "solana-devnet", transaction }, endUser: session }),
        400,
        "malformed_transaction",
      );
    }
  });
});

describe("Solana transactions longer than a transaction can be", () => {
  // 1,233 bytes, one more than the network's packet data size; and 4 MB of base64.
  const OVERSIZE = [Buffer.alloc(1_233, 1).toString("base64"), "A".repeat(4_000_000)];
  const refusedUnread = (res: { status: number; body: Record<string, unknown> }) => {
    expectClientError(res, 400, "malformed_transaction");
    // Refused by its length, before decoding: the message names the bound, not what the decoder found.
    expect(res.body.errorMessage).toMatch(/at most 1232 bytes \(1644 base64 characters\)/);
  };

  it("are refused by their length before they are decoded, by the developer's and the end user's sign and send", async () => {
    const { address } = (await call(sandbox, "POST", "/platform/v2/solana/accounts", { body: {}, wallet: true })).body;
    const userId = "oversize-tx-user";
    await call(sandbox, "POST", "/platform/v2/end-users", {
      body: { userId, authenticationMethods: [{ type: "email", email: "oversize@example.com" }], solanaAccount: {} },
      wallet: true,
    });
    const userAddress = (await call(sandbox, "GET", `/platform/v2/end-users/${userId}`)).body.solanaAccounts[0] as string;
    const session = await endUserSession(sandbox, userId);
    const EW = `/platform/v2/embedded-wallet-api/end-users/${userId}/solana`;
    for (const transaction of OVERSIZE) {
      refusedUnread(await call(sandbox, "POST", `/platform/v2/solana/accounts/${address}/sign/transaction`, { body: { transaction }, wallet: true }));
      refusedUnread(
        await call(sandbox, "POST", "/platform/v2/solana/accounts/send/transaction", { body: { network: "solana-devnet", transaction }, wallet: true }),
      );
      refusedUnread(await call(sandbox, "POST", `${EW}/sign/transaction`, { body: { address: userAddress, transaction }, endUser: session }));
      refusedUnread(
        await call(sandbox, "POST", `${EW}/send/transaction`, { body: { address: userAddress, network: "solana-devnet", transaction }, endUser: session }),
      );
    }
  });

  it("are refused by the node's sendTransaction in base58 before the quadratic decoding, as the Solana RPC refuses them", async () => {
    const url = await nodeUrlFor(sandbox, "solana-devnet");
    // 100,000 base58 characters: decoding them took tens of seconds with the event loop held.
    const res = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "sendTransaction", params: ["x".repeat(100_000), { encoding: "base58" }] }),
    });
    const body = (await res.json()) as { error: { code: number; message: string } };
    expect(body.error.code).toBe(-32602);
    expect(body.error.message).toMatch(/too large: 100000 characters \(max: 1683 for 1232 bytes\)/);
  });
});

describe("a wallet token's reqHash", () => {
  it("covers a `__proto__` member: a body that gains one after signing is refused and creates nothing", async () => {
    const before = (await call(sandbox, "GET", "/platform/v2/evm/accounts")).body.accounts.length;
    for (const extra of ['"__proto__":{"isAdmin":true}', '"__proto__":null', '"__proto__":"x"']) {
      const res = await call(sandbox, "POST", "/platform/v2/evm/accounts", {
        rawBody: `{"name":"proto-after-signing",${extra}}`,
        // Signed over the body without the member, as it was before an attacker added it.
        wallet: { override: { claims: { reqHash: reqHashOfClientBody({ name: "proto-after-signing" }) } } },
      });
      expectClientError(res, 401, "unauthorized");
      expect(res.body.errorMessage).toMatch(/reqHash/);
    }
    expect((await call(sandbox, "GET", "/platform/v2/evm/accounts")).body.accounts.length).toBe(before);
  });
});

/** SHA-256 of the body's JSON with keys sorted, as the client computes it (here for a body without `__proto__`). */
function reqHashOfClientBody(body: Record<string, unknown>): string {
  const sorted = Object.fromEntries(
    Object.keys(body)
      .sort()
      .map((k) => [k, body[k]]),
  );
  return createHash("sha256").update(JSON.stringify(sorted)).digest("hex");
}

describe("a bearer token's times", () => {
  it("refuses an exp earlier than nbf, even when both are inside the clock-skew leeway", async () => {
    const now = Math.floor(Date.now() / 1000);
    for (const times of [
      { nbf: now, iat: now, exp: now - 5 },
      { nbf: now + 10, iat: now, exp: now + 5 },
    ]) {
      const res = await call(sandbox, "GET", "/platform/v2/evm/accounts", { bearer: { override: { claims: times } } });
      expectClientError(res, 401, "unauthorized");
      expect(res.body.errorMessage).toMatch(/exp .* earlier than nbf/);
    }
  });
});

describe("bodies over the contract's size bounds", () => {
  it("refuse a policy of 100,000 rules at the contract's bound (100), not after checking each rule", async () => {
    const before = (await call(sandbox, "GET", "/platform/v2/policy-engine/policies")).body.policies.length;
    const rules = Array.from({ length: 100_000 }, () => ({}));
    const res = await call(sandbox, "POST", "/platform/v2/policy-engine/policies", { body: { scope: "account", rules } });
    expectClientError(res, 400, "invalid_request");
    expect(res.body.errorMessage).toMatch(/body\.rules: .*must NOT have more than 100 items/);
    expect((await call(sandbox, "GET", "/platform/v2/policy-engine/policies")).body.policies.length).toBe(before);
  });

  it("refuse an end user with 100,000 authentication methods, storing nothing", async () => {
    const before = (await call(sandbox, "GET", "/platform/v2/end-users")).body.endUsers.length;
    const authenticationMethods = Array.from({ length: 100_000 }, (_, i) => ({ type: "email", email: `u${i}@example.com` }));
    const res = await call(sandbox, "POST", "/platform/v2/end-users", { body: { authenticationMethods }, wallet: true });
    expectClientError(res, 400, "invalid_request");
    expect(res.body.errorMessage).toMatch(/authenticationMethods.*must NOT have more than 20 items/);
    expect((await call(sandbox, "GET", "/platform/v2/end-users")).body.endUsers.length).toBe(before);
  });

  it("refuse typed data whose message holds 100,000 values before encoding it", async () => {
    const { address } = (await call(sandbox, "POST", "/platform/v2/evm/accounts", { body: {}, wallet: true })).body;
    const typedData = {
      domain: { name: "Big", chainId: 1 },
      types: {
        EIP712Domain: [
          { name: "name", type: "string" },
          { name: "chainId", type: "uint256" },
        ],
        Big: [{ name: "values", type: "uint256[100000]" }],
      },
      primaryType: "Big",
      message: { values: Array.from({ length: 100_000 }, (_, i) => String(i)) },
    };
    const res = await call(sandbox, "POST", `/platform/v2/evm/accounts/${address}/sign/typed-data`, { body: typedData, wallet: true });
    expectClientError(res, 400, "invalid_request");
    expect(res.body.errorMessage).toMatch(/more than 10000 values/);
  });
});

describe("a malformed x402 payment payload", () => {
  it("is refused with one problem naming the closest variant and what it lacks, not every variant's problems", async () => {
    const res = await call(sandbox, "POST", "/platform/v2/x402/verify", {
      body: {
        x402Version: 2,
        paymentPayload: { x402Version: 2, accepted: { scheme: "exact", network: "eip155:84532" }, payload: { signature: `0x${"ab".repeat(65)}` } },
        paymentRequirements: { scheme: "exact", network: "eip155:84532" },
      },
    });
    expectClientError(res, 400, "invalid_request");
    const message = res.body.errorMessage as string;
    expect(message).toMatch(
      /body\.paymentPayload\.payload matches none of its \d+ variants; the closest is .+, where body\.paymentPayload\.payload\.authorization is missing/,
    );
    expect(message.split("; ").length, message).toBeLessThan(12);
  });
});

describe("a policy whose rules match none of a rule's variants", () => {
  // A criterion whose `type` is a list of strings: no variant of a rule matches it.
  const ruleOf = (types: number) => ({
    action: "reject",
    operation: "signEvmTransaction",
    criteria: [{ type: Array(types).fill("ethValue"), ethValue: "1", operator: ">" }],
  });

  it("is refused at its first refused rule, named with its closest variant, without walking the other 99 (create and update)", async () => {
    // Before, every problem of every rule was gathered (33,000 for 100 rules, 2–6 s with the event loop held) and
    // listed; the count of rules named is what shows the walk stopped.
    const created = await call(sandbox, "POST", "/platform/v2/policy-engine/policies", {
      body: { scope: "account", rules: [{ action: "accept", operation: "signEvmTransaction", criteria: [] }] },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    // 100 rules (one type each), and one rule of 1,000 types (330 problems of its variants, listed one by one before).
    for (const rules of [Array(100).fill(ruleOf(1)), [ruleOf(1_000)]])
      for (const [method, path] of [
        ["POST", "/platform/v2/policy-engine/policies"],
        ["PUT", `/platform/v2/policy-engine/policies/${created.body.id}`],
      ] as const) {
        const res = await call(sandbox, method, path, { body: method === "PUT" ? { rules } : { scope: "account", rules } });
        expectClientError(res, 400, "invalid_request");
        const message = res.body.errorMessage as string;
        expect(message).toMatch(/body\.rules\.0 matches none of its \d+ variants; the closest is/);
        const rulesNamed = new Set([...message.matchAll(/rules\.(\d+)/g)].map((m) => m[1]));
        expect([...rulesNamed], message.slice(0, 500)).toEqual(["0"]);
        expect(message.split("; ").length, message.slice(0, 500)).toBeLessThan(12);
      }
    const kept = await call(sandbox, "GET", `/platform/v2/policy-engine/policies/${created.body.id}`);
    expect(kept.body.rules).toEqual(created.body.rules);
  });
});

describe("lists and strings the platform sets no bound on", () => {
  it("refuse a policy whose message expression is a megabyte long, before compiling it, storing nothing", async () => {
    const before = (await call(sandbox, "GET", "/platform/v2/policy-engine/policies")).body.policies.length;
    const rules = [{ action: "accept", operation: "signEvmMessage", criteria: [{ type: "evmMessage", match: "x".repeat(1_000_000) }] }];
    const res = await call(sandbox, "POST", "/platform/v2/policy-engine/policies", { body: { scope: "account", rules } });
    expectClientError(res, 400, "invalid_request");
    expect(res.body.errorMessage).toMatch(/must NOT have more than 10000 characters/);
    expect((await call(sandbox, "GET", "/platform/v2/policy-engine/policies")).body.policies.length).toBe(before);
  });

  it("refuse a user operation of 100,000 calls at the sandbox's documented bound (100)", async () => {
    const owner = (await call(sandbox, "POST", "/platform/v2/evm/accounts", { body: {}, wallet: true })).body.address;
    const smart = (await call(sandbox, "POST", "/platform/v2/evm/smart-accounts", { body: { owners: [owner] } })).body.address;
    const calls = Array.from({ length: 100_000 }, () => ({ to: owner }));
    const res = await call(sandbox, "POST", `/platform/v2/evm/smart-accounts/${smart}/user-operations`, { body: { network: "base-sepolia", calls } });
    expectClientError(res, 400, "invalid_request");
    expect(res.body.errorMessage).toMatch(/body\.calls: .*must NOT have more than 100 items/);
  });
});

describe("an end user's walletSecretId of megabytes", () => {
  it("is refused with 401 in an answer of ordinary size, naming the id's start and length rather than repeating it", async () => {
    const userId = "huge-secret-id-user";
    const { address, session } = await endUserWithSolanaAccount(userId, "huge-secret@example.com");
    // Read by the signature check, before the body's schema (whose pattern allows 100 characters) is applied.
    const walletSecretId = "x".repeat(4_000_000);
    const path = `/platform/v2/embedded-wallet-api/end-users/${userId}/solana/sign/message`;
    for (const wallet of [undefined, false as const]) {
      const res = await call(sandbox, "POST", path, { body: { address, message: "hi", walletSecretId }, endUser: session, wallet });
      expectClientError(res, 401, "unauthorized");
      expect(res.text.length).toBeLessThan(1_000);
      expect(res.body.errorMessage).toContain("xxx… (4,000,000 characters)");
    }
    // An id of the contract's size is still named whole.
    const res = await call(sandbox, "POST", path, { body: { address, message: "hi", walletSecretId: "a".repeat(100) }, endUser: session });
    expect(res.body.errorMessage).toContain(`walletSecretId ${"a".repeat(100)} is not`);
  });
});
