/**
 * The node's test methods driven by viem's own test client, in its `anvil` and `hardhat` modes, and read back through
 * the node (viem's public client) and the REST API: one ledger behind every door.
 */
import { type Hex, createPublicClient, createTestClient, http, parseEther, type PublicClient, type TestClient } from "viem";
import { baseSepolia } from "viem/chains";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClock, type Sandbox } from "cdp-sandbox";
import { call, nodeUrlFor, withSandbox } from "#test/helpers/sandbox.js";

const ALICE = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8" as const;
const BOB = "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC" as const;
const USDC_BASE_SEPOLIA = "0x036CbD53842c5426634e7929541eC2318f3dCF7e" as const;
/** Runtime code that returns storage slot 0: SLOAD(0), MSTORE(0), RETURN(0, 32). */
const RETURNS_SLOT_0 = "0x60005460005260206000f3" as const;

let sandbox: Sandbox;
let url: string;
let node: PublicClient;

async function rpc(method: string, params: unknown[] = [], headers: Record<string, string> = {}) {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  return (await res.json()) as { result?: unknown; error?: { code: number; message: string } };
}

/** The address's native balance as the platform's REST API lists it (wei as a string; "0" when not listed). */
async function restBalance(address: string, token = "eth") {
  const res = await call(sandbox, "GET", `/platform/v2/evm/token-balances/base-sepolia/${address}`);
  expect(res.status).toBe(200);
  const row = (res.body.balances as Array<{ token: { symbol: string; contractAddress: string }; amount: { amount: string } }>).find(
    (b) => b.token.symbol.toLowerCase() === token,
  );
  return row?.amount.amount ?? "0";
}

beforeAll(async () => {
  const clock = createClock();
  clock.freeze(true);
  sandbox = await withSandbox({ clock });
  url = await nodeUrlFor(sandbox, "base-sepolia");
  node = createPublicClient({ chain: baseSepolia, transport: http(url), cacheTime: 0 }) as PublicClient;
});
afterAll(() => sandbox.close());

describe.each(["anvil", "hardhat"] as const)("viem's test client in %s mode", (mode) => {
  let test: TestClient;
  beforeAll(() => {
    test = createTestClient({ mode, chain: baseSepolia, transport: http(url) });
  });

  it("sets a native balance that the node and the REST API both report", async () => {
    await test.setBalance({ address: ALICE, value: parseEther("12.5") });
    expect(await node.getBalance({ address: ALICE })).toBe(parseEther("12.5"));
    expect(await restBalance(ALICE)).toBe(parseEther("12.5").toString());
    await test.setBalance({ address: ALICE, value: 7n });
    expect(await node.getBalance({ address: ALICE })).toBe(7n);
  });

  it("sets code, storage and a nonce that calls read back", async () => {
    const contract = mode === "anvil" ? "0x00000000000000000000000000000000000c0de1" : "0x00000000000000000000000000000000000c0de2";
    await test.setCode({ address: contract, bytecode: RETURNS_SLOT_0 });
    expect(await node.getCode({ address: contract })).toBe(RETURNS_SLOT_0);
    const word = `0x${"2a".padStart(64, "0")}` as Hex;
    await test.setStorageAt({ address: contract, index: 0, value: word });
    expect(await node.getStorageAt({ address: contract, slot: "0x0" })).toBe(word);
    expect((await node.call({ to: contract, data: "0x" })).data).toBe(word);
    await test.setNonce({ address: BOB, nonce: 41 });
    expect(await node.getTransactionCount({ address: BOB })).toBe(41);
  });

  it("mines blocks, moving the sandbox clock with them", async () => {
    const before = await node.getBlockNumber();
    const clockBefore = Date.parse((await call(sandbox, "GET", "/_sandbox/clock")).body.now);
    await test.mine({ blocks: 10 });
    expect(await node.getBlockNumber()).toBe(before + 10n);
    const clockAfter = Date.parse((await call(sandbox, "GET", "/_sandbox/clock")).body.now);
    expect(clockAfter - clockBefore).toBeGreaterThanOrEqual(10 * 2000 - 2000);
    const head = await node.getBlock();
    expect(Number(head.timestamp) * 1000).toBeLessThanOrEqual(clockAfter);
  });

  it("increases time by the sandbox clock, and sets the next block's timestamp", async () => {
    const before = sandbox.clock.now();
    await test.increaseTime({ seconds: 3600 });
    expect(sandbox.clock.now() - before).toBe(3_600_000);
    const head = await node.getBlock();
    const next = head.timestamp + 100n;
    await test.setNextBlockTimestamp({ timestamp: next });
    await test.mine({ blocks: 1 });
    expect((await node.getBlock()).timestamp).toBe(next);
  });

  it("snapshots and reverts the project's ledger; the snapshot is the admin API's", async () => {
    await test.setBalance({ address: ALICE, value: 1000n });
    const id = await test.snapshot();
    const listed = (await call(sandbox, "GET", "/_sandbox/snapshots")).body.snapshots as Array<{ snapshotId: string; scope: string }>;
    expect(listed).toContainEqual(expect.objectContaining({ snapshotId: id, scope: "project" }));
    await test.setBalance({ address: ALICE, value: 5n });
    expect(await restBalance(ALICE)).toBe("5");
    await test.revert({ id });
    expect(await node.getBalance({ address: ALICE })).toBe(1000n);
    expect(await restBalance(ALICE)).toBe("1000");
  });

  it("sends for an impersonated account until impersonation stops", async () => {
    const whale = mode === "anvil" ? "0x00000000000000000000000000000000000000a1" : "0x00000000000000000000000000000000000000a2";
    await test.setBalance({ address: whale, value: parseEther("1") });
    await test.impersonateAccount({ address: whale });
    const before = await node.getBalance({ address: BOB });
    const hash = (await rpc("eth_sendTransaction", [{ from: whale, to: BOB, value: "0x64" }])).result as Hex;
    const receipt = await node.getTransactionReceipt({ hash });
    expect(receipt.status).toBe("success");
    expect(receipt.from.toLowerCase()).toBe(whale);
    expect(await node.getBalance({ address: BOB })).toBe(before + 100n);
    await test.stopImpersonatingAccount({ address: whale });
    const refused = await rpc("eth_sendTransaction", [{ from: whale, to: BOB, value: "0x64" }]);
    expect(refused.error?.code).toBe(-32000);
    expect(refused.error?.message).toMatch(/unknown account/);
    expect(await node.getBalance({ address: BOB })).toBe(before + 100n);
  });

  it("switches between automine and interval mining (the --mining modes)", async () => {
    const whale = "0x00000000000000000000000000000000000000a3";
    await test.setBalance({ address: whale, value: parseEther("1") });
    await test.impersonateAccount({ address: whale });
    await test.setAutomine(false);
    expect(await test.getAutomine()).toBe(false);
    const hash = (await rpc("eth_sendTransaction", [{ from: whale, to: BOB, value: "0x1" }])).result as Hex;
    expect((await rpc("eth_getTransactionReceipt", [hash])).result).toBeNull();
    await test.mine({ blocks: 1 });
    expect((await node.getTransactionReceipt({ hash })).status).toBe("success");
    await test.setIntervalMining({ interval: 0 });
    expect(await test.getAutomine()).toBe(true);
    await test.setAutomine(false);
    await test.setAutomine(true);
    expect(await test.getAutomine()).toBe(true);
  });
});

describe("the project's state through the test client", () => {
  const test = () => createTestClient({ mode: "anvil", chain: baseSepolia, transport: http(url) });

  it("deals a token of the sandbox's table, which the REST API lists", async () => {
    await rpc("anvil_dealERC20", [ALICE, USDC_BASE_SEPOLIA, "0x4c4b40"]);
    expect(await restBalance(ALICE, "usdc")).toBe("5000000");
    const refused = await rpc("anvil_dealERC20", [ALICE, "0x00000000000000000000000000000000000c0de1", "0x1"]);
    expect(refused.error?.code).toBe(-32602);
    expect(refused.error?.message).toMatch(/not a token of the sandbox's table/);
  });

  it("dumps the state and loads it back", async () => {
    await test().setBalance({ address: ALICE, value: 4242n });
    const dump = await test().dumpState();
    expect(dump).toMatch(/^0x1f8b/); // gzip, as Anvil dumps
    await test().setBalance({ address: ALICE, value: 1n });
    await test().loadState({ state: dump });
    expect(await node.getBalance({ address: ALICE })).toBe(4242n);
    expect(await restBalance(ALICE)).toBe("4242");
  });

  it("resets the project: the ledger and the platform's records go, the credentials stay", async () => {
    const made = await call(sandbox, "POST", "/platform/v2/evm/accounts", { body: {}, wallet: true });
    expect(made.status).toBe(201);
    await test().setBalance({ address: ALICE, value: 9n });
    await test().reset();
    expect(await node.getBalance({ address: ALICE })).toBe(0n);
    const accounts = await call(sandbox, "GET", "/platform/v2/evm/accounts");
    expect(accounts.status).toBe(200);
    expect(accounts.body.accounts).toEqual([]);
  });
});

describe("test methods given what they cannot take", () => {
  it("answers -32602 saying what was expected, and changes nothing", async () => {
    await rpc("anvil_setBalance", [ALICE, "0x5"]);
    const cases: Array<[string, unknown[], RegExp]> = [
      ["anvil_setBalance", ["0x1234", "0x1"], /params\[0\] must be a 0x-prefixed 20-byte address/],
      ["anvil_setBalance", [ALICE, "lots"], /params\[1\] must be a balance in wei as a hex quantity/],
      ["anvil_impersonateAccount", ["0xnot-an-address"], /params\[0\] must be a 0x-prefixed 20-byte address/],
      ["anvil_setStorageAt", [ALICE, "0x0", `0x${"1".repeat(66)}`], /params\[2\] must be a 32-byte hex word/],
      ["anvil_setCode", [ALICE, "0x123"], /params\[1\] must be the runtime bytecode/],
      ["anvil_mine", ["0xffffffffff"], /params\[0\] must be a number of blocks of at most/],
      ["evm_increaseTime", [-5], /params\[0\] must be a number of seconds/],
      ["evm_setNextBlockTimestamp", ["0x1"], /after the latest block's/],
      ["evm_setAutomine", ["yes"], /params\[0\] must be true or false/],
      ["evm_revert", ["snap_doesnotexist"], /no snapshot "snap_doesnotexist" of this project/],
      ["anvil_reset", [{ forking: { jsonRpcUrl: "https://mainnet.base.org" } }], /cannot fork a live chain/],
      ["anvil_loadState", ["0xdeadbeef"], /must be what anvil_dumpState returned/],
    ];
    const clockBefore = sandbox.clock.now();
    for (const [method, params, message] of cases) {
      const out = await rpc(method, params);
      expect(out.error?.code, method).toBe(-32602);
      expect(out.error?.message, method).toMatch(message);
    }
    expect(await node.getBalance({ address: ALICE })).toBe(5n);
    expect(sandbox.clock.now()).toBe(clockBefore);
  });

  it("answers -32601 to a test method the node does not have, as to any unknown method", async () => {
    const out = await rpc("anvil_setLoggingEnabled", [true]);
    expect(out.error?.code).toBe(-32601);
  });
});

describe("test methods off loopback", () => {
  it("take the admin token when the sandbox does not allow them to all", async () => {
    const guarded = await withSandbox({ allowTestMethods: false, adminToken: "t0ken" });
    try {
      const guardedUrl = await nodeUrlFor(guarded, "base-sepolia");
      const send = (headers: Record<string, string>) =>
        fetch(guardedUrl, {
          method: "POST",
          headers: { "content-type": "application/json", ...headers },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "anvil_setBalance", params: [ALICE, "0x10"] }),
        }).then((r) => r.json() as Promise<{ result?: unknown; error?: { code: number; message: string } }>);
      const refused = await send({});
      expect(refused.error?.code).toBe(-32001);
      expect(refused.error?.message).toMatch(/X-Sandbox-Admin-Token/);
      const snapshot = await fetch(guardedUrl, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "evm_snapshot", params: [] }),
      }).then((r) => r.json() as Promise<{ error?: { code: number } }>);
      expect(snapshot.error?.code).toBe(-32001);
      const reader = createPublicClient({ chain: baseSepolia, transport: http(guardedUrl) });
      expect(await reader.getBalance({ address: ALICE })).toBe(0n);
      expect((await send({ "X-Sandbox-Admin-Token": "t0ken" })).result).toBeNull();
      expect(await reader.getBalance({ address: ALICE })).toBe(16n);
    } finally {
      await guarded.close();
    }
  });

  it("bound to 0.0.0.0, take the made-up admin token, or nothing once --allow-test-methods is listed under optIns", async () => {
    const [exposed, opened] = await Promise.all([withSandbox({ host: "0.0.0.0" }), withSandbox({ host: "0.0.0.0", allowTestMethods: true })]);
    try {
      const setBalance = async (sandbox: Sandbox, headers: Record<string, string>) =>
        (await fetch(await nodeUrlFor(sandbox, "base-sepolia"), {
          method: "POST",
          headers: { "content-type": "application/json", ...headers },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "anvil_setBalance", params: [BOB, "0x7"] }),
        }).then((r) => r.json())) as { result?: unknown; error?: { code: number } };
      expect(exposed.optIns).toEqual([]);
      expect((await setBalance(exposed, {})).error?.code).toBe(-32001);
      expect(await setBalance(exposed, { "X-Sandbox-Admin-Token": exposed.adminToken! })).toMatchObject({ result: null });
      expect(opened.optIns).toContain("test-methods");
      expect(await setBalance(opened, {})).toMatchObject({ result: null });
    } finally {
      await Promise.all([exposed.close(), opened.close()]);
    }
  });
});
