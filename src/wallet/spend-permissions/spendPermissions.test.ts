/**
 * Spend permissions over HTTP: created and revoked by user operations of the
 * smart account, listed with their state, and used by the spender calling the
 * SpendPermissionManager's `spend` — within the allowance per period, and
 * reverting beyond it. Hashes and calldata are recomputed with viem.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import request from "supertest";
import { decodeErrorResult, decodeFunctionData, encodeFunctionData, hashTypedData, parseEventLogs, erc20Abi, serializeTransaction, type Hex } from "viem";
import type { Sandbox } from "cdp-sandbox";
import { call, fund, hostOf, withSandbox } from "#test/helpers/sandbox.js";
import { mintBearer } from "#test/helpers/tokens.js";

let sandbox: Sandbox;
let rpcPath: string;
beforeAll(async () => {
  // Interval mining: these tests watch user operations wait for their block (broadcast, then complete).
  sandbox = await withSandbox({ seed: "spend-permissions", validateResponses: true, mining: "interval" });
  const path = "/apikeys/v1/tokens/active";
  const token = await mintBearer(sandbox.credentials.apiKeyId, sandbox.credentials.apiKeySecret, { method: "GET", host: `http://${hostOf(sandbox)}`, path });
  rpcPath = `/rpc/v1/base-sepolia/${(await request(sandbox.url).get(path).set("Authorization", `Bearer ${token}`)).body.id}`;
});
afterAll(() => sandbox.close());

const MANAGER = "0xf85210B21cC50302F477BA56686d2019dC9b67Ad";
const USDC = "0x036CbD53842c5426634e7929541eC2318f3dCF7e"; // Base Sepolia
const ETH = "0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE";
const DAY = 86_400;
const PERMISSION = {
  type: "tuple",
  name: "spendPermission",
  components: [
    { name: "account", type: "address" },
    { name: "spender", type: "address" },
    { name: "token", type: "address" },
    { name: "allowance", type: "uint160" },
    { name: "period", type: "uint48" },
    { name: "start", type: "uint48" },
    { name: "end", type: "uint48" },
    { name: "salt", type: "uint256" },
    { name: "extraData", type: "bytes" },
  ],
} as const;
const managerAbi = [
  { type: "function", name: "approve", stateMutability: "nonpayable", inputs: [PERMISSION], outputs: [{ type: "bool" }] },
  { type: "function", name: "spend", stateMutability: "nonpayable", inputs: [PERMISSION, { name: "value", type: "uint160" }], outputs: [] },
] as const;
type Permission = {
  account: string;
  spender: string;
  token: string;
  allowance: string;
  period: string;
  start: string;
  end: string;
  salt: string;
  extraData: string;
};
const struct = (p: Permission) => ({
  ...p,
  account: p.account as Hex,
  spender: p.spender as Hex,
  token: p.token as Hex,
  extraData: p.extraData as Hex,
  allowance: BigInt(p.allowance),
  period: Number(p.period),
  start: Number(p.start),
  end: Number(p.end),
  salt: BigInt(p.salt),
});

const now = () => Math.floor(sandbox.clock.now() / 1000);
const newAccount = async () => (await call(sandbox, "POST", "/platform/v2/evm/accounts", { body: {}, wallet: true })).body.address as `0x${string}`;

/** A smart account owned by a project account, holding 5 USDC and 1 ETH on Base Sepolia, and a spender with gas. */
async function setup() {
  const smart = (await call(sandbox, "POST", "/platform/v2/evm/smart-accounts", { body: { owners: [await newAccount()] } })).body.address as `0x${string}`;
  await fund(sandbox, { network: "base-sepolia", address: smart, token: "USDC", amount: "5000000" });
  await fund(sandbox, { network: "base-sepolia", address: smart, amount: "1000000000000000000" });
  const spender = await newAccount();
  await fund(sandbox, { network: "base-sepolia", address: spender, amount: "1000000000000000000" });
  return { smart, spender };
}
const create = (smart: string, body: Record<string, string>) =>
  call(sandbox, "POST", `/platform/v2/evm/smart-accounts/${smart}/spend-permissions`, { body: { network: "base-sepolia", ...body }, wallet: true });
const list = async (smart: string) =>
  (await call(sandbox, "GET", `/platform/v2/evm/smart-accounts/${smart}/spend-permissions/list`)).body.spendPermissions as Array<{
    permission: Permission;
    permissionHash: Hex;
    revoked: boolean;
    revokedAt?: string;
    createdAt: string;
  }>;
async function firstListed(smart: string) {
  const [item] = await list(smart);
  if (!item) throw new Error(`no spend permission listed for ${smart}`);
  return item;
}
const revoke = (smart: string, permissionHash: string) =>
  call(sandbox, "POST", `/platform/v2/evm/smart-accounts/${smart}/spend-permissions/revoke`, {
    body: { network: "base-sepolia", permissionHash },
    wallet: true,
  });

/** The spender's own transaction to the manager, as the official client's account.useSpendPermission sends it. */
async function spend(spender: string, permission: Permission, value: bigint) {
  const data = encodeFunctionData({ abi: managerAbi, functionName: "spend", args: [struct(permission), value] });
  const res = await call(sandbox, "POST", `/platform/v2/evm/accounts/${spender}/send/transaction`, {
    body: { network: "base-sepolia", transaction: serializeTransaction({ to: MANAGER, data, chainId: 1, type: "eip1559" }) },
    wallet: true,
  });
  expect(res.status).toBe(200);
  sandbox.clock.advance(4000);
  const receipt = await request(sandbox.url)
    .post(rpcPath)
    .set("Content-Type", "application/json")
    .send(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_getTransactionReceipt", params: [res.body.transactionHash] }));
  const r = receipt.body.result;
  const reason = r.revertReason
    ? (decodeErrorResult({ abi: [{ type: "error", name: "Error", inputs: [{ name: "m", type: "string" }] }], data: r.revertReason }).args[0] as string)
    : undefined;
  return { status: r.status === "0x1" ? "success" : "reverted", reason, logs: r.logs };
}
const usdcOf = async (address: string) =>
  (await call(sandbox, "GET", `/platform/v2/evm/token-balances/base-sepolia/${address}`)).body.balances.find(
    (b: { token: { symbol: string } }) => b.token.symbol === "USDC",
  )?.amount.amount ?? "0";

describe("spend permissions", () => {
  it("creates a permission by a user operation calling the manager's approve, and lists it under the manager's EIP-712 hash", async () => {
    const { smart, spender } = await setup();
    const start = String(now());
    const res = await create(smart, { spender, token: USDC, allowance: "1000000", period: String(DAY), start, end: "281474976710655", salt: "7" });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe("broadcast");
    expect(res.body.calls).toHaveLength(1);
    expect(res.body.calls[0].to).toBe(MANAGER);
    const decoded = decodeFunctionData({ abi: managerAbi, data: res.body.calls[0].data });
    expect(decoded.functionName).toBe("approve");
    expect(decoded.args[0]).toMatchObject({ account: smart, spender, token: USDC, allowance: 1_000_000n, period: DAY, salt: 7n, extraData: "0x" });
    const [listed, ...rest] = await list(smart);
    expect(rest).toEqual([]);
    expect(listed).toMatchObject({
      revoked: false,
      network: "base-sepolia",
      permission: { account: smart, spender, token: USDC, allowance: "1000000", period: "86400", start, end: "281474976710655", salt: "7", extraData: "0x" },
    });
    const expected = hashTypedData({
      domain: { name: "Spend Permission Manager", version: "1", chainId: 84532, verifyingContract: MANAGER },
      types: { SpendPermission: PERMISSION.components.map((c) => ({ ...c })) },
      primaryType: "SpendPermission",
      message: struct(listed!.permission),
    });
    expect(listed!.permissionHash).toBe(expected);
    sandbox.clock.advance(4000);
    expect((await call(sandbox, "GET", `/platform/v2/evm/smart-accounts/${smart}/user-operations/${res.body.userOpHash}`)).body.status).toBe("complete");
  });

  it("lets the spender take up to the allowance per period, reverts beyond it, and allows it again in the next period", async () => {
    const { smart, spender } = await setup();
    await create(smart, { spender, token: USDC, allowance: "1000000", period: String(DAY), start: String(now()), end: String(now() + 30 * DAY) });
    const { permission } = await firstListed(smart);
    const first = await spend(spender, permission, 600_000n);
    expect(first.status).toBe("success");
    const transfers = parseEventLogs({ abi: erc20Abi, logs: first.logs, eventName: "Transfer" });
    expect(transfers.map((t) => [t.args.from, t.args.to, t.args.value])).toEqual([[smart, spender, 600_000n]]);
    expect(await usdcOf(spender)).toBe("600000");
    const over = await spend(spender, permission, 500_000n);
    expect(over).toMatchObject({ status: "reverted" });
    expect(over.reason).toMatch(/^ExceededSpendPermission\(1100000, 1000000\).*allows 400000 more/);
    expect((await spend(spender, permission, 400_000n)).status).toBe("success");
    sandbox.clock.advance(DAY * 1000);
    expect((await spend(spender, permission, 1_000_000n)).status).toBe("success");
    expect(await usdcOf(spender)).toBe("2000000");
    expect(await usdcOf(smart)).toBe("3000000");
  });

  it("spends native ETH, and refuses anyone but the spender, before start and after end", async () => {
    const { smart, spender } = await setup();
    await create(smart, { spender, token: ETH, allowance: "1000", period: String(DAY), start: String(now() + 60), end: String(now() + 2 * DAY) });
    const { permission } = await firstListed(smart);
    expect((await spend(spender, permission, 10n)).reason).toMatch(/^BeforeSpendPermissionStart/);
    sandbox.clock.advance(60_000);
    const stranger = await newAccount();
    await fund(sandbox, { network: "base-sepolia", address: stranger, amount: "1000000000000000" });
    expect((await spend(stranger, permission, 10n)).reason).toMatch(/^InvalidSender/);
    const before = BigInt((await call(sandbox, "GET", `/platform/v2/evm/token-balances/base-sepolia/${smart}`)).body.balances[0].amount.amount);
    expect((await spend(spender, permission, 10n)).status).toBe("success");
    const after = BigInt((await call(sandbox, "GET", `/platform/v2/evm/token-balances/base-sepolia/${smart}`)).body.balances[0].amount.amount);
    expect(before - after).toBe(10n); // gas of user operations is sponsored; the spender paid its own
    sandbox.clock.advance(2 * DAY * 1000);
    expect((await spend(spender, permission, 10n)).reason).toMatch(/^AfterSpendPermissionEnd/);
  });

  it("revokes by a user operation: listed as revoked, spending reverts, and it can be neither revoked nor approved again", async () => {
    const { smart, spender } = await setup();
    const terms = { spender, token: USDC, allowance: "1000000", period: String(DAY), start: String(now()), end: String(now() + DAY * 10) };
    await create(smart, terms);
    const { permission, permissionHash } = await firstListed(smart);
    const res = await revoke(smart, permissionHash);
    expect(res.status).toBe(200);
    expect(
      decodeFunctionData({
        abi: [{ type: "function", name: "revoke", stateMutability: "nonpayable", inputs: [PERMISSION], outputs: [] }],
        data: res.body.calls[0].data,
      }).functionName,
    ).toBe("revoke");
    const [listed] = await list(smart);
    expect(listed).toMatchObject({ permissionHash, revoked: true });
    expect(Math.abs(Date.parse(listed!.revokedAt!) - sandbox.clock.now())).toBeLessThan(5000);
    expect((await spend(spender, permission, 1n)).reason).toMatch(/^UnauthorizedSpendPermission/);
    const again = await revoke(smart, permissionHash);
    expect(again.status).toBe(400);
    expect(again.body.errorMessage).toContain("already revoked");
    const reapprove = await create(smart, terms);
    expect(reapprove.status).toBe(400);
    expect(reapprove.body.errorMessage).toContain("another salt");
  });

  it("answers 404 for an unknown smart account or a permission it does not have, and 400 for impossible terms", async () => {
    const { smart, spender } = await setup();
    const unknown = "0x1111111111111111111111111111111111111111";
    expect((await call(sandbox, "GET", `/platform/v2/evm/smart-accounts/${unknown}/spend-permissions/list`)).status).toBe(404);
    expect((await create(unknown, { spender, token: USDC, allowance: "1", period: "1", start: "0", end: "10" })).status).toBe(404);
    const missing = await revoke(smart, `0x${"ab".repeat(32)}`);
    expect(missing.status).toBe(404);
    expect(missing.body.errorType).toBe("not_found");
    expect((await revoke(smart, "0x1234")).status).toBe(400);
    const valid = { spender, token: USDC, allowance: "1", period: "1", start: "0", end: "10" };
    for (const [bad, message] of [
      [{ start: "10", end: "10" }, "before end"],
      [{ allowance: "0" }, "allowance must be between 1"],
      [{ period: "0" }, "period (seconds) must be between 1"],
      [{ allowance: "1e6" }, "allowance must be a non-negative integer"],
      [{ end: "281474976710656" }, "end (unix seconds) must be between"],
    ] as const) {
      const res = await create(smart, { ...valid, ...bad });
      expect(res.status).toBe(400);
      expect(res.body.errorMessage).toContain(message);
    }
    expect(await list(smart)).toEqual([]);
  });
});
