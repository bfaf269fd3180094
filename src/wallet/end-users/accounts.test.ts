/**
 * Acting on end users' accounts: by the end user (access token) or by the
 * developer under a delegation grant, with every delegation error, grants
 * walked through active → expired and active → revoked on the sandbox clock.
 * Signatures checked with viem and noble.
 */
import { ed25519 } from "@noble/curves/ed25519.js";
import { getBase58Encoder } from "@solana/kit";
import request from "supertest";
import { recoverMessageAddress, recoverTypedDataAddress, serializeTransaction, verifyTypedData } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "cdp-sandbox";
import { call, endUserSession, fund, withSandbox, type EndUserSession } from "#test/helpers/sandbox.js";
import { lowercaseAddresses, mixedCaseTypedData } from "#test/helpers/typedData.js";

let sandbox: Sandbox;
beforeAll(async () => {
  // Interval mining: these tests watch user operations wait for their block (in flight, then complete).
  sandbox = await withSandbox({ seed: "end-user-accounts", mining: "interval" });
});
afterAll(() => sandbox.close());

const EW = "/platform/v2/embedded-wallet-api/end-users";
let n = 0;
async function newUser() {
  const userId = `eu-${++n}`;
  const res = await call(sandbox, "POST", "/platform/v2/end-users", {
    body: { userId, authenticationMethods: [{ type: "email", email: `${userId}@example.com` }], solanaAccount: {} },
    wallet: true,
  });
  await call(sandbox, "POST", `/platform/v2/end-users/${userId}/evm`, { body: {}, wallet: true });
  const user = (await call(sandbox, "GET", `/platform/v2/end-users/${userId}`)).body;
  const session = await endUserSession(sandbox, userId);
  return { userId, evm: user.evmAccounts as string[], sol: user.solanaAccounts[0] as string, session, created: res.body };
}
const asUser = (session: EndUserSession) => ({ endUser: session });
const signMessage = (userId: string, address: string, o: object = {}) =>
  call(sandbox, "POST", `${EW}/${userId}/evm/sign/message`, { body: { address, message: "hello" }, ...o });
const grant = (u: { userId: string; session: EndUserSession }, address: string, expiresAt: string) =>
  call(sandbox, "POST", `${EW}/${u.userId}/address/${address}/delegation`, { body: { expiresAt }, ...asUser(u.session) });
const inOneHour = () => new Date(sandbox.clock.now() + 3600_000).toISOString();

describe("end users act on their own accounts", () => {
  it("signs an EVM message with the user's token, verifiable with viem", async () => {
    const u = await newUser();
    const res = await signMessage(u.userId, u.evm[0]!, asUser(u.session));
    expect(res.status).toBe(200);
    expect(await recoverMessageAddress({ message: "hello", signature: res.body.signature })).toBe(u.evm[0]);
  });

  it("signs a Solana message with the user's token, verifiable with noble", async () => {
    const u = await newUser();
    const res = await call(sandbox, "POST", `${EW}/${u.userId}/solana/sign/message`, { body: { address: u.sol, message: "gm" }, ...asUser(u.session) });
    expect(res.status).toBe(200);
    expect(
      ed25519.verify(
        new Uint8Array(getBase58Encoder().encode(res.body.signature)),
        new TextEncoder().encode("gm"),
        new Uint8Array(getBase58Encoder().encode(u.sol)),
      ),
    ).toBe(true);
  });

  it("signs typed data whose addresses are mixed case with a wrong checksum, verifiable with viem in lowercase", async () => {
    const u = await newUser();
    const typedData = mixedCaseTypedData("0x000000000022D473030F116dDEE9F6B43aC78BA3");
    const res = await call(sandbox, "POST", `${EW}/${u.userId}/evm/sign/typed-data`, { body: { address: u.evm[0], typedData }, ...asUser(u.session) });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const lowercase = lowercaseAddresses(typedData);
    expect(await verifyTypedData({ ...lowercase, address: u.evm[0] as `0x${string}`, signature: res.body.signature } as never)).toBe(true);
    expect(await recoverTypedDataAddress({ ...lowercase, signature: res.body.signature } as never)).toBe(u.evm[0]);
  });

  it("refuses another user's token (401) and an address the user does not own (404)", async () => {
    const u = await newUser();
    const other = await newUser();
    expect((await signMessage(u.userId, u.evm[0]!, asUser(other.session))).status).toBe(401);
    expect((await signMessage(u.userId, other.evm[0]!, asUser(u.session))).status).toBe(404);
  });
});

describe("end users sign X-Wallet-Auth with their Temporary Wallet Secret", () => {
  it("needs walletSecretId (400) and X-Wallet-Auth (401) when the end user signs", async () => {
    const u = await newUser();
    const noId = await signMessage(u.userId, u.evm[0]!, { ...asUser(u.session), body: { address: u.evm[0], message: "hello", walletSecretId: undefined } });
    expect(noId.status).toBe(400);
    expect(noId.body.errorMessage).toMatch(/walletSecretId is required/);
    const noToken = await signMessage(u.userId, u.evm[0]!, { ...asUser(u.session), wallet: false });
    expect(noToken.status).toBe(401);
    expect(noToken.body.errorMessage).toMatch(/Missing X-Wallet-Auth/);
  });

  it("refuses a walletSecretId that is unknown or another user's, and a token signed with another secret", async () => {
    const u = await newUser();
    const other = await newUser();
    const unknown = await signMessage(u.userId, u.evm[0]!, {
      ...asUser(u.session),
      body: { address: u.evm[0], message: "hello", walletSecretId: "ws-unknown" },
    });
    expect(unknown.status).toBe(401);
    expect(unknown.body.errorMessage).toMatch(/not a Temporary Wallet Secret of end user/);
    const foreignId = await signMessage(u.userId, u.evm[0]!, { ...asUser({ ...u.session, walletSecretId: other.session.walletSecretId }) });
    expect(foreignId.status).toBe(401);
    const wrongKey = await signMessage(u.userId, u.evm[0]!, { ...asUser({ ...u.session, walletSecret: other.session.walletSecret }) });
    expect(wrongKey.status).toBe(401);
    expect(wrongKey.body.errorMessage).toMatch(/bad signature.*Temporary Wallet Secret/);
  });

  it("refuses a replayed X-Wallet-Auth of an end user", async () => {
    const u = await newUser();
    const first = await signMessage(u.userId, u.evm[0]!, { ...asUser(u.session), wallet: { jti: "eu-replay-1" } });
    expect(first.status).toBe(200);
    const again = await signMessage(u.userId, u.evm[0]!, { ...asUser(u.session), wallet: { jti: "eu-replay-1" } });
    expect(again.status).toBe(401);
    expect(again.body.errorMessage).toMatch(/replayed/);
  });
});

describe("the developer acts under a delegation grant", () => {
  it("answers delegation_not_found without a grant", async () => {
    const u = await newUser();
    const res = await signMessage(u.userId, u.evm[0]!);
    expect(res.status).toBe(403);
    expect(res.body.errorType).toBe("delegation_not_found");
  });

  it("walks a grant from active to expired on the sandbox clock", async () => {
    const u = await newUser();
    const created = await grant(u, u.evm[0]!, inOneHour());
    expect(created.status).toBe(201);
    expect((await call(sandbox, "GET", `${EW}/${u.userId}/address/${u.evm[0]}/delegation`)).body.expiresAt).toBe(created.body.expiresAt);
    expect((await signMessage(u.userId, u.evm[0]!)).status).toBe(200);
    sandbox.clock.advance(2 * 3600_000);
    const expired = await signMessage(u.userId, u.evm[0]!);
    expect(expired.status).toBe(403);
    expect(expired.body.errorType).toBe("delegation_expired");
  });

  it("walks a grant from active to revoked, by the end user", async () => {
    const u = await newUser();
    await grant(u, u.evm[0]!, inOneHour());
    expect((await signMessage(u.userId, u.evm[0]!)).status).toBe(200);
    const revoked = await call(sandbox, "DELETE", `${EW}/${u.userId}/address/${u.evm[0]}/delegation`, { body: {}, ...asUser(u.session) });
    expect(revoked.status).toBe(204);
    const res = await signMessage(u.userId, u.evm[0]!);
    expect(res.status).toBe(403);
    expect(res.body.errorType).toBe("delegation_revoked");
  });

  it("answers delegation_not_authorized for an address the grant does not cover (EVM compared case-insensitively)", async () => {
    const u = await newUser();
    await grant(u, u.evm[0]!.toLowerCase(), inOneHour());
    expect((await signMessage(u.userId, u.evm[0]!)).status).toBe(200);
    const res = await signMessage(u.userId, u.evm[1]!);
    expect(res.status).toBe(403);
    expect(res.body.errorType).toBe("delegation_not_authorized");
  });

  it("allows one active grant per user (409 for a second) and refuses a past expiresAt", async () => {
    const u = await newUser();
    expect((await grant(u, u.evm[0]!, inOneHour())).status).toBe(201);
    expect((await grant(u, u.evm[1]!, inOneHour())).status).toBe(409);
    expect((await grant(u, u.evm[1]!, new Date(sandbox.clock.now() - 1000).toISOString())).status).toBe(400);
  });

  it("scopes a grant made for a smart account to its owner EOA", async () => {
    const userId = `eu-sg-${++n}`;
    const created = (
      await call(sandbox, "POST", "/platform/v2/end-users", {
        body: { userId, authenticationMethods: [{ type: "email", email: `${userId}@example.com` }], evmAccount: { createSmartAccount: true } },
        wallet: true,
      })
    ).body;
    const [owner, smart] = [created.evmAccounts[0] as string, created.evmSmartAccounts[0] as string];
    const session = await endUserSession(sandbox, userId);
    expect((await grant({ userId, session }, smart, inOneHour())).status).toBe(201);
    expect((await call(sandbox, "GET", `${EW}/${userId}/address/${owner}/delegation`)).status).toBe(200);
    expect((await call(sandbox, "GET", `${EW}/${userId}/address/${smart}/delegation`)).status).toBe(200);
    expect((await signMessage(userId, owner)).status).toBe(200);
    expect((await call(sandbox, "DELETE", `${EW}/${userId}/address/${smart}/delegation`, { body: {} })).status).toBe(204);
    expect((await signMessage(userId, owner)).body.errorType).toBe("delegation_revoked");
  });

  it("covers every account with a project-wide grant, which the developer revokes with all the user's grants", async () => {
    const u = await newUser();
    const made = await call(sandbox, "POST", `/_sandbox/end-users/${u.userId}/delegation`, { body: { expiresAt: inOneHour() } });
    expect(made.status).toBe(201);
    expect(made.body.scope).toBe("project");
    expect((await call(sandbox, "POST", `/_sandbox/end-users/${u.userId}/delegation`, { body: { expiresAt: inOneHour() } })).status).toBe(409);
    expect((await call(sandbox, "GET", `${EW}/${u.userId}/delegation`)).body.expiresAt).toBe(made.body.expiresAt);
    expect((await signMessage(u.userId, u.evm[0]!)).status).toBe(200);
    expect((await signMessage(u.userId, u.evm[1]!)).status).toBe(200);
    expect((await call(sandbox, "POST", `${EW}/${u.userId}/solana/sign/message`, { body: { address: u.sol, message: "gm" } })).status).toBe(200);
    expect((await call(sandbox, "DELETE", `${EW}/${u.userId}/delegation`, { body: {} })).status).toBe(204);
    expect((await signMessage(u.userId, u.evm[1]!)).body.errorType).toBe("delegation_revoked");
    expect((await call(sandbox, "GET", `${EW}/${u.userId}/delegation`)).status).toBe(404);
    expect((await call(sandbox, "DELETE", `${EW}/${u.userId}/delegation`, { body: {} })).status).toBe(404);
  });

  it("revokes an account-scoped grant when the developer revokes all of the user's delegations", async () => {
    const u = await newUser();
    await grant(u, u.evm[0]!, inOneHour());
    expect((await call(sandbox, "GET", `${EW}/${u.userId}/delegation`)).status).toBe(200);
    expect((await call(sandbox, "DELETE", `${EW}/${u.userId}/delegation`, { body: {} })).status).toBe(204);
    expect((await signMessage(u.userId, u.evm[0]!)).body.errorType).toBe("delegation_revoked");
  });

  it("answers delegation_not_enabled when the project switched delegated signing off", async () => {
    const project = await sandbox.createProject("no-delegation");
    await request(sandbox.url)
      .patch(`/_sandbox/projects/${project.projectId}`)
      .send({ settings: { delegationEnabled: false } })
      .expect(200);
    const userId = "nodeleg-1";
    const user = (
      await call(sandbox, "POST", "/platform/v2/end-users", {
        body: { userId, authenticationMethods: [{ type: "email", email: "nd@example.com" }] },
        wallet: true,
        credentials: project,
      })
    ).body;
    const res = await call(sandbox, "POST", `${EW}/${userId}/evm/sign/message`, { body: { address: user.evmAccounts[0], message: "x" }, credentials: project });
    expect(res.status).toBe(403);
    expect(res.body.errorType).toBe("delegation_not_enabled");
  });

  it("sends an EVM transaction for the user on the ledger, under the grant", async () => {
    const u = await newUser();
    await fund(sandbox, { network: "base-sepolia", address: u.evm[0]!, amount: "1000000000000000" });
    await grant(u, u.evm[0]!, inOneHour());
    const res = await call(sandbox, "POST", `${EW}/${u.userId}/evm/send/transaction`, {
      body: {
        address: u.evm[0],
        network: "base-sepolia",
        transaction: serializeTransaction({ type: "eip1559", chainId: 84532, to: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8", value: 1000n }),
      },
    });
    expect(res.status).toBe(200);
    expect(res.body.transactionHash).toMatch(/^0x[0-9a-f]{64}$/);
  });

  it("applies the project policy to end-user operations", async () => {
    const project = await sandbox.createProject("eu-policy");
    await call(sandbox, "POST", "/platform/v2/policy-engine/policies", {
      body: {
        scope: "project",
        rules: [
          { action: "reject", operation: "signEndUserEvmMessage", criteria: [{ type: "evmMessage", match: "^transfer" }] },
          { action: "accept", operation: "signEndUserEvmMessage", criteria: [] },
        ],
      },
      credentials: project,
    });
    const userId = "eu-pol-1";
    const user = (
      await call(sandbox, "POST", "/platform/v2/end-users", {
        body: { userId, authenticationMethods: [{ type: "email", email: "pol@example.com" }] },
        wallet: true,
        credentials: project,
      })
    ).body;
    const session = await endUserSession(sandbox, userId, project);
    const ok = await call(sandbox, "POST", `${EW}/${userId}/evm/sign/message`, {
      body: { address: user.evmAccounts[0], message: "hello" },
      ...asUser(session),
    });
    expect(ok.status).toBe(200);
    const rejected = await call(sandbox, "POST", `${EW}/${userId}/evm/sign/message`, {
      body: { address: user.evmAccounts[0], message: "transfer all" },
      ...asUser(session),
    });
    expect(rejected.status).toBe(403);
    expect(rejected.body.errorType).toBe("policy_violation");
  });
});

describe("project policies on end users' typed data", () => {
  it("accepts typed data for a listed verifying contract under an amount, rejects the rest", async () => {
    const project = await sandbox.createProject("eu-typed-policy");
    const PERMIT2 = "0x000000000022D473030F116dDEE9F6B43aC78BA3";
    const types = {
      Permit: [
        { name: "spender", type: "address" },
        { name: "amount", type: "uint256" },
      ],
    };
    const rules = [
      {
        action: "accept",
        operation: "signEndUserEvmTypedData",
        criteria: [
          { type: "evmTypedDataVerifyingContract", addresses: [PERMIT2], operator: "in" },
          { type: "evmTypedDataField", types: { types, primaryType: "Permit" }, conditions: [{ path: "amount", value: "1000", operator: "<=" }] },
        ],
      },
    ];
    expect((await call(sandbox, "POST", "/platform/v2/policy-engine/policies", { body: { scope: "project", rules }, credentials: project })).status).toBe(201);
    const userId = "eu-typed-1";
    const user = (
      await call(sandbox, "POST", "/platform/v2/end-users", {
        body: { userId, authenticationMethods: [{ type: "email", email: "typed@example.com" }] },
        wallet: true,
        credentials: project,
      })
    ).body;
    const session = await endUserSession(sandbox, userId, project);
    const sign = (verifyingContract: string, amount: string) =>
      call(sandbox, "POST", `${EW}/${userId}/evm/sign/typed-data`, {
        body: {
          address: user.evmAccounts[0],
          typedData: {
            domain: { name: "Permit2", chainId: 84532, verifyingContract },
            types: {
              EIP712Domain: [
                { name: "name", type: "string" },
                { name: "chainId", type: "uint256" },
                { name: "verifyingContract", type: "address" },
              ],
              ...types,
            },
            primaryType: "Permit",
            message: { spender: PERMIT2, amount },
          },
        },
        ...asUser(session),
        credentials: project,
      });
    expect((await sign(PERMIT2, "999")).status).toBe(200);
    expect((await sign(PERMIT2, "1001")).body.errorType).toBe("policy_violation");
    expect((await sign("0x2222222222222222222222222222222222222222", "5")).body.errorType).toBe("policy_violation");
  });
});

describe("end users move assets", () => {
  it("sends USDC from the user's EVM account on the ledger, with the user's token", async () => {
    const u = await newUser();
    await fund(sandbox, { network: "base-sepolia", address: u.evm[0]!, amount: "1000000000000000" });
    await fund(sandbox, { network: "base-sepolia", address: u.evm[0]!, token: "USDC", amount: "5000000" });
    const to = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
    const before =
      (await call(sandbox, "GET", `/platform/v2/evm/token-balances/base-sepolia/${to}`)).body.balances.find(
        (b: { token: { symbol: string } }) => b.token.symbol === "USDC",
      )?.amount.amount ?? "0";
    const res = await call(sandbox, "POST", `${EW}/${u.userId}/evm/${u.evm[0]}/send/usdc`, {
      body: { to, amount: "1.5", network: "base-sepolia" },
      ...asUser(u.session),
    });
    expect(res.status).toBe(200);
    expect(res.body.transactionHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(res.body.userOpHash).toBeNull();
    const after = (await call(sandbox, "GET", `/platform/v2/evm/token-balances/base-sepolia/${to}`)).body.balances.find(
      (b: { token: { symbol: string } }) => b.token.symbol === "USDC",
    ).amount.amount;
    expect(BigInt(after) - BigInt(before)).toBe(1_500_000n);
  });

  it("sends USDC from the user's Solana account, sponsored, and refuses more than the balance", async () => {
    const u = await newUser();
    await fund(sandbox, { network: "solana-devnet", address: u.sol, token: "USDC", amount: "2000000" });
    const to = (await newUser()).sol;
    const ok = await call(sandbox, "POST", `${EW}/${u.userId}/solana/${u.sol}/send/usdc`, {
      body: { to, amount: "1", network: "solana-devnet", useCdpSponsor: true },
      ...asUser(u.session),
    });
    expect(ok.status).toBe(200);
    const received = (await call(sandbox, "GET", `/platform/v2/solana/token-balances/solana-devnet/${to}`)).body.balances;
    expect(received[0].amount.amount).toBe("1000000");
    const tooMuch = await call(sandbox, "POST", `${EW}/${u.userId}/solana/${u.sol}/send/usdc`, {
      body: { to, amount: "5", network: "solana-devnet", useCdpSponsor: true },
      ...asUser(u.session),
    });
    expect(tooMuch.status).toBe(400);
    expect(tooMuch.body.errorType).toBe("insufficient_balance");
  });

  it("sends USDC from the user's smart account as a user operation, gas paid by the paymaster", async () => {
    const userId = `eu-smart-${++n}`;
    const created = (
      await call(sandbox, "POST", "/platform/v2/end-users", {
        body: { userId, authenticationMethods: [{ type: "email", email: `${userId}@example.com` }], evmAccount: { createSmartAccount: true } },
        wallet: true,
      })
    ).body;
    const smart = created.evmSmartAccounts[0] as string;
    const session = await endUserSession(sandbox, userId);
    await fund(sandbox, { network: "base-sepolia", address: smart, token: "USDC", amount: "3000000" });
    const to = "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC";
    const usdcOf = async (address: string) =>
      (await call(sandbox, "GET", `/platform/v2/evm/token-balances/base-sepolia/${address}`)).body.balances.find(
        (b: { token: { symbol: string } }) => b.token.symbol === "USDC",
      )?.amount.amount ?? "0";
    const before = BigInt(await usdcOf(to));
    const both = await call(sandbox, "POST", `${EW}/${userId}/evm/${smart}/send/usdc`, {
      body: { to, amount: "1", network: "base-sepolia", useCdpPaymaster: true, paymasterUrl: "https://paymaster.example.com" },
      ...asUser(session),
    });
    expect(both.status).toBe(400);
    expect(both.body.errorMessage).toMatch(/cannot be used together/);
    const res = await call(sandbox, "POST", `${EW}/${userId}/evm/${smart}/send/usdc`, {
      body: { to, amount: "2.5", network: "base-sepolia", useCdpPaymaster: true },
      ...asUser(session),
    });
    expect(res.status).toBe(200);
    expect(res.body.transactionHash).toBeNull();
    expect(res.body.userOpHash).toMatch(/^0x[0-9a-f]{64}$/);
    sandbox.clock.advance(4000);
    expect(BigInt(await usdcOf(to)) - before).toBe(2_500_000n);
    expect(await usdcOf(smart)).toBe("500000");
  });

  it("governs asset sends with the project's sendEndUserEvmAsset rules", async () => {
    const project = await sandbox.createProject("eu-asset-policy");
    const rules = [
      {
        action: "accept",
        operation: "sendEndUserEvmAsset",
        criteria: [{ type: "evmData", abi: "erc20", conditions: [{ function: "transfer", params: [{ name: "value", operator: "<=", value: "1000000" }] }] }],
      },
    ];
    expect((await call(sandbox, "POST", "/platform/v2/policy-engine/policies", { body: { scope: "project", rules }, credentials: project })).status).toBe(201);
    const userId = "eu-asset-pol-1";
    const user = (
      await call(sandbox, "POST", "/platform/v2/end-users", {
        body: { userId, authenticationMethods: [{ type: "email", email: "ap@example.com" }] },
        wallet: true,
        credentials: project,
      })
    ).body;
    const from = user.evmAccounts[0] as string;
    await fund(sandbox, { network: "base-sepolia", address: from, amount: "1000000000000000" }, project);
    await fund(sandbox, { network: "base-sepolia", address: from, token: "USDC", amount: "5000000" }, project);
    const session = await endUserSession(sandbox, userId, project);
    const send = (amount: string) =>
      call(sandbox, "POST", `${EW}/${userId}/evm/${from}/send/usdc`, {
        body: { to: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8", amount, network: "base-sepolia" },
        ...asUser(session),
        credentials: project,
      });
    expect((await send("0.5")).status).toBe(200);
    const rejected = await send("2");
    expect(rejected.status).toBe(403);
    expect(rejected.body.errorType).toBe("policy_violation");
  });

  it("delegates an end user's EVM account with EIP-7702", async () => {
    const u = await newUser();
    const res = await call(sandbox, "POST", `${EW}/${u.userId}/evm/eip7702/delegation`, {
      body: { address: u.evm[0], network: "base-sepolia" },
      ...asUser(u.session),
    });
    expect(res.status).toBe(201);
    const op = await call(sandbox, "GET", `/platform/v2/evm/eip7702/delegation-operations/${res.body.delegationOperationId}`);
    expect(op.body.network).toBe("base-sepolia");
  });
});

describe("user operations for end users' smart accounts", () => {
  async function userWithSmart() {
    const userId = `uo-${++n}`;
    const created = await call(sandbox, "POST", "/platform/v2/end-users", {
      body: { userId, authenticationMethods: [{ type: "email", email: `${userId}@example.com` }], evmAccount: { createSmartAccount: true } },
      wallet: true,
    });
    const session = await endUserSession(sandbox, userId);
    return { userId, session, owner: created.body.evmAccounts[0] as string, smart: created.body.evmSmartAccounts[0] as string };
  }
  const body = (extra: object = {}) => ({
    network: "base-sepolia",
    calls: [{ to: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8", value: "0", data: "0x" }],
    useCdpPaymaster: true,
    ...extra,
  });

  it("sends for the end user with their token, and insists on walletSecretId", async () => {
    const u = await userWithSmart();
    const missing = await call(sandbox, "POST", `${EW}/${u.userId}/evm/smart-accounts/${u.smart}/send`, {
      body: body({ walletSecretId: undefined }),
      ...asUser(u.session),
    });
    expect(missing.status).toBe(400);
    expect(missing.body.errorMessage).toMatch(/walletSecretId/);
    const res = await call(sandbox, "POST", `${EW}/${u.userId}/evm/smart-accounts/${u.smart}/send`, { body: body(), ...asUser(u.session) });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe("broadcast");
    expect(res.body.userOpHash).toMatch(/^0x[0-9a-f]{64}$/);
    sandbox.clock.advance(4000);
  });

  it("sends for the developer under a grant on the owner account, and 404s for an unknown smart account", async () => {
    const u = await userWithSmart();
    expect((await call(sandbox, "POST", `${EW}/${u.userId}/evm/smart-accounts/${u.smart}/send`, { body: body() })).body.errorType).toBe("delegation_not_found");
    await grant(u, u.owner, inOneHour());
    expect((await call(sandbox, "POST", `${EW}/${u.userId}/evm/smart-accounts/${u.smart}/send`, { body: body() })).status).toBe(200);
    const unknown = await call(sandbox, "POST", `${EW}/${u.userId}/evm/smart-accounts/0x${"12".repeat(20)}/send`, { body: body() });
    expect(unknown.status).toBe(404);
    expect(unknown.body.errorType).toBe("not_found");
  });

  it("answers 429 when the project has too many user operations in flight", async () => {
    const u = await userWithSmart();
    const statuses: number[] = [];
    sandbox.clock.advance(4000); // earlier tests' operations are included first
    sandbox.clock.freeze(true); // and no block may be mined while these pile up, however slow the machine
    for (let i = 0; i < 7; i++)
      statuses.push((await call(sandbox, "POST", `${EW}/${u.userId}/evm/smart-accounts/${u.smart}/send`, { body: body(), ...asUser(u.session) })).status);
    sandbox.clock.freeze(false);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429]);
    sandbox.clock.advance(4000);
    expect((await call(sandbox, "POST", `${EW}/${u.userId}/evm/smart-accounts/${u.smart}/send`, { body: body(), ...asUser(u.session) })).status).toBe(200);
  });
});
