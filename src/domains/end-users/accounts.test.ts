/**
 * Acting on end users' accounts: by the end user (access token) or by the
 * developer under a delegation grant, with every delegation error, grants
 * walked through active → expired and active → revoked on the sandbox clock.
 * Signatures checked with viem and noble.
 */
import { ed25519 } from "@noble/curves/ed25519.js";
import { getBase58Encoder } from "@solana/kit";
import request from "supertest";
import { recoverMessageAddress, serializeTransaction } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "cdp-sandbox";
import { call, fund, withSandbox } from "../../../test/helpers/sandbox.js";

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await withSandbox({ seed: "end-user-accounts" });
});
afterAll(() => sandbox.close());

const EW = "/platform/v2/embedded-wallet-api/end-users";
let n = 0;
async function newUser() {
  const userId = `eu-${++n}`;
  const res = await call(sandbox, "POST", "/platform/v2/end-users", { body: { userId, authenticationMethods: [{ type: "email", email: `${userId}@example.com` }], solanaAccount: {} }, wallet: true });
  await call(sandbox, "POST", `/platform/v2/end-users/${userId}/evm`, { body: {}, wallet: true });
  const user = (await call(sandbox, "GET", `/platform/v2/end-users/${userId}`)).body;
  const token = (await request(sandbox.url).post(`/_sandbox/end-users/${userId}/token`).send({})).body.accessToken as string;
  return { userId, evm: user.evmAccounts as string[], sol: user.solanaAccounts[0] as string, token, created: res.body };
}
const asUser = (token: string) => ({ anonymous: true, headers: { Authorization: `Bearer ${token}` } });
const signMessage = (userId: string, address: string, o: object = {}) => call(sandbox, "POST", `${EW}/${userId}/evm/sign/message`, { body: { address, message: "hello" }, ...o });
const grant = (u: { userId: string; token: string }, address: string, expiresAt: string) =>
  call(sandbox, "POST", `${EW}/${u.userId}/address/${address}/delegation`, { body: { expiresAt, walletSecretId: "ws-1" }, anonymous: true, headers: { Authorization: `Bearer ${u.token}`, "X-Wallet-Auth": "end-user-wallet-token" } });
const inOneHour = () => new Date(sandbox.clock.now() + 3600_000).toISOString();

describe("end users act on their own accounts", () => {
  it("signs an EVM message with the user's token, verifiable with viem", async () => {
    const u = await newUser();
    const res = await signMessage(u.userId, u.evm[0]!, asUser(u.token));
    expect(res.status).toBe(200);
    expect(await recoverMessageAddress({ message: "hello", signature: res.body.signature })).toBe(u.evm[0]);
  });

  it("signs a Solana message with the user's token, verifiable with noble", async () => {
    const u = await newUser();
    const res = await call(sandbox, "POST", `${EW}/${u.userId}/solana/sign/message`, { body: { address: u.sol, message: "gm" }, ...asUser(u.token) });
    expect(res.status).toBe(200);
    expect(ed25519.verify(new Uint8Array(getBase58Encoder().encode(res.body.signature)), new TextEncoder().encode("gm"), new Uint8Array(getBase58Encoder().encode(u.sol)))).toBe(true);
  });

  it("refuses another user's token (401) and an address the user does not own (404)", async () => {
    const u = await newUser();
    const other = await newUser();
    expect((await signMessage(u.userId, u.evm[0]!, asUser(other.token))).status).toBe(401);
    expect((await signMessage(u.userId, other.evm[0]!, asUser(u.token))).status).toBe(404);
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
    const revoked = await call(sandbox, "DELETE", `${EW}/${u.userId}/address/${u.evm[0]}/delegation`, { body: {}, ...asUser(u.token) });
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

  it("answers delegation_not_enabled when the project switched delegated signing off", async () => {
    const project = await sandbox.createProject("no-delegation");
    await request(sandbox.url).patch(`/_sandbox/projects/${project.projectId}`).send({ settings: { delegationEnabled: false } }).expect(200);
    const userId = "nodeleg-1";
    const user = (await call(sandbox, "POST", "/platform/v2/end-users", { body: { userId, authenticationMethods: [{ type: "email", email: "nd@example.com" }] }, wallet: true, credentials: project })).body;
    const res = await call(sandbox, "POST", `${EW}/${userId}/evm/sign/message`, { body: { address: user.evmAccounts[0], message: "x" }, credentials: project });
    expect(res.status).toBe(403);
    expect(res.body.errorType).toBe("delegation_not_enabled");
  });

  it("sends an EVM transaction for the user on the ledger, under the grant", async () => {
    const u = await newUser();
    await fund(sandbox, { network: "base-sepolia", address: u.evm[0]!, amount: "1000000000000000" });
    await grant(u, u.evm[0]!, inOneHour());
    const res = await call(sandbox, "POST", `${EW}/${u.userId}/evm/send/transaction`, {
      body: { address: u.evm[0], network: "base-sepolia", transaction: serializeTransaction({ type: "eip1559", chainId: 84532, to: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8", value: 1000n }) },
    });
    expect(res.status).toBe(200);
    expect(res.body.transactionHash).toMatch(/^0x[0-9a-f]{64}$/);
  });

  it("applies the project policy to end-user operations", async () => {
    const project = await sandbox.createProject("eu-policy");
    await call(sandbox, "POST", "/platform/v2/policy-engine/policies", { body: { scope: "project", rules: [{ action: "reject", operation: "signEndUserEvmMessage", criteria: [{ type: "evmMessage", match: "^transfer" }] }, { action: "accept", operation: "signEndUserEvmMessage", criteria: [] }] }, credentials: project });
    const userId = "eu-pol-1";
    const user = (await call(sandbox, "POST", "/platform/v2/end-users", { body: { userId, authenticationMethods: [{ type: "email", email: "pol@example.com" }] }, wallet: true, credentials: project })).body;
    const token = (await call(sandbox, "POST", `/_sandbox/end-users/${userId}/token`, { body: {}, credentials: project })).body.accessToken;
    const ok = await call(sandbox, "POST", `${EW}/${userId}/evm/sign/message`, { body: { address: user.evmAccounts[0], message: "hello" }, ...asUser(token) });
    expect(ok.status).toBe(200);
    const rejected = await call(sandbox, "POST", `${EW}/${userId}/evm/sign/message`, { body: { address: user.evmAccounts[0], message: "transfer all" }, ...asUser(token) });
    expect(rejected.status).toBe(403);
    expect(rejected.body.errorType).toBe("policy_violation");
  });
});

describe("end users move assets", () => {
  it("sends USDC from the user's EVM account on the ledger, with the user's token", async () => {
    const u = await newUser();
    await fund(sandbox, { network: "base-sepolia", address: u.evm[0]!, amount: "1000000000000000" });
    await fund(sandbox, { network: "base-sepolia", address: u.evm[0]!, token: "USDC", amount: "5000000" });
    const to = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
    const before = (await call(sandbox, "GET", `/platform/v2/evm/token-balances/base-sepolia/${to}`)).body.balances.find((b: { token: { symbol: string } }) => b.token.symbol === "USDC")?.amount.amount ?? "0";
    const res = await call(sandbox, "POST", `${EW}/${u.userId}/evm/${u.evm[0]}/send/usdc`, { body: { to, amount: "1.5", network: "base-sepolia" }, ...asUser(u.token) });
    expect(res.status).toBe(200);
    expect(res.body.transactionHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(res.body.userOpHash).toBeNull();
    const after = (await call(sandbox, "GET", `/platform/v2/evm/token-balances/base-sepolia/${to}`)).body.balances.find((b: { token: { symbol: string } }) => b.token.symbol === "USDC").amount.amount;
    expect(BigInt(after) - BigInt(before)).toBe(1_500_000n);
  });

  it("sends USDC from the user's Solana account, sponsored, and refuses more than the balance", async () => {
    const u = await newUser();
    await fund(sandbox, { network: "solana-devnet", address: u.sol, token: "USDC", amount: "2000000" });
    const to = (await newUser()).sol;
    const ok = await call(sandbox, "POST", `${EW}/${u.userId}/solana/${u.sol}/send/usdc`, { body: { to, amount: "1", network: "solana-devnet", useCdpSponsor: true }, ...asUser(u.token) });
    expect(ok.status).toBe(200);
    const received = (await call(sandbox, "GET", `/platform/v2/solana/token-balances/solana-devnet/${to}`)).body.balances;
    expect(received[0].amount.amount).toBe("1000000");
    const tooMuch = await call(sandbox, "POST", `${EW}/${u.userId}/solana/${u.sol}/send/usdc`, { body: { to, amount: "5", network: "solana-devnet", useCdpSponsor: true }, ...asUser(u.token) });
    expect(tooMuch.status).toBe(400);
    expect(tooMuch.body.errorType).toBe("insufficient_balance");
  });

  it("delegates an end user's EVM account with EIP-7702", async () => {
    const u = await newUser();
    const res = await call(sandbox, "POST", `${EW}/${u.userId}/evm/eip7702/delegation`, { body: { address: u.evm[0], network: "base-sepolia" }, ...asUser(u.token) });
    expect(res.status).toBe(201);
    const op = await call(sandbox, "GET", `/platform/v2/evm/eip7702/delegation-operations/${res.body.delegationOperationId}`);
    expect(op.body.network).toBe("base-sepolia");
  });
});

describe("user operations for end users' smart accounts (seed 4.1)", () => {
  async function userWithSmart() {
    const userId = `uo-${++n}`;
    const created = await call(sandbox, "POST", "/platform/v2/end-users", { body: { userId, authenticationMethods: [{ type: "email", email: `${userId}@example.com` }], evmAccount: { createSmartAccount: true } }, wallet: true });
    const token = (await request(sandbox.url).post(`/_sandbox/end-users/${userId}/token`).send({})).body.accessToken as string;
    return { userId, token, owner: created.body.evmAccounts[0] as string, smart: created.body.evmSmartAccounts[0] as string };
  }
  const body = (extra: object = {}) => ({ network: "base-sepolia", calls: [{ to: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8", value: "0", data: "0x" }], useCdpPaymaster: true, ...extra });

  it("sends for the end user with their token, and insists on walletSecretId", async () => {
    const u = await userWithSmart();
    const missing = await call(sandbox, "POST", `${EW}/${u.userId}/evm/smart-accounts/${u.smart}/send`, { body: body(), ...asUser(u.token) });
    expect(missing.status).toBe(400);
    expect(missing.body.errorMessage).toMatch(/walletSecretId/);
    const res = await call(sandbox, "POST", `${EW}/${u.userId}/evm/smart-accounts/${u.smart}/send`, { body: body({ walletSecretId: "ws-1" }), ...asUser(u.token) });
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
    for (let i = 0; i < 7; i++) statuses.push((await call(sandbox, "POST", `${EW}/${u.userId}/evm/smart-accounts/${u.smart}/send`, { body: body({ walletSecretId: "ws-1" }), ...asUser(u.token) })).status);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThan(0);
    sandbox.clock.advance(4000);
    expect((await call(sandbox, "POST", `${EW}/${u.userId}/evm/smart-accounts/${u.smart}/send`, { body: body({ walletSecretId: "ws-1" }), ...asUser(u.token) })).status).toBe(200);
  });
});
