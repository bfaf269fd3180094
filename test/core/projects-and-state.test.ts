import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import type { Sandbox } from "cdp-sandbox";
import { call, fund, withSandbox } from "#test/helpers/sandbox.js";
import { recordingHandlers } from "#test/helpers/handlers.js";
import { balanceOf, setBalance } from "../../src/chain/balances.js";
import { NATIVE_TOKEN_ADDRESS } from "../../src/chain/tokens.js";

const CREATE = "/platform/v2/evm/accounts";

describe("projects are isolated", () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await withSandbox({ handlers: recordingHandlers() });
  });
  afterAll(() => sandbox.close());

  it("never shows one project's state to another", async () => {
    const a = await call(sandbox, "POST", "/_sandbox/projects", { anonymous: true, body: { name: "suite-a" } });
    const b = await call(sandbox, "POST", "/_sandbox/projects", { anonymous: true, body: { name: "suite-b" } });
    expect(a.status).toBe(201);
    expect(a.body.basePath).toBe(sandbox.basePath);
    expect(a.body.apiKeyId).not.toBe(b.body.apiKeyId);
    await call(sandbox, "POST", CREATE, { credentials: a.body, body: { name: "only-in-a" }, wallet: true });
    const listA = await call(sandbox, "GET", CREATE, { credentials: a.body });
    const listB = await call(sandbox, "GET", CREATE, { credentials: b.body });
    expect(listA.body.accounts.map((x: { name: string }) => x.name)).toEqual(["only-in-a"]);
    expect(listB.body.accounts).toEqual([]);
  });

  it("hands out one project's credentials, which sign its requests, and shows a bearer of another project none", async () => {
    const a = (await call(sandbox, "POST", "/_sandbox/projects", { anonymous: true, body: { name: "keys-a" } })).body;
    const b = (await call(sandbox, "POST", "/_sandbox/projects", { anonymous: true, body: { name: "keys-b" } })).body;
    const got = await call(sandbox, "GET", `/_sandbox/projects/${a.projectId}/credentials`, { anonymous: true });
    expect(got.status).toBe(200);
    expect(got.body).toEqual({ projectId: a.projectId, apiKeyId: a.apiKeyId, apiKeySecret: a.apiKeySecret, walletSecret: a.walletSecret });
    const created = await call(sandbox, "POST", CREATE, {
      credentials: { ...got.body, basePath: a.basePath },
      body: { name: "signed-with-them" },
      wallet: true,
    });
    expect(created.status).toBe(201);
    const hidden = await call(sandbox, "GET", `/_sandbox/projects/${a.projectId}/credentials`, { credentials: b });
    expect(hidden.status).toBe(404);
    const unknown = await call(sandbox, "GET", "/_sandbox/projects/no-such-project/credentials", { anonymous: true });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ errorType: "not_found", correlationId: expect.any(String), errorLink: expect.any(String) });
  });

  it("journals requests per project", async () => {
    const a = (await call(sandbox, "POST", "/_sandbox/projects", { anonymous: true, body: {} })).body;
    await call(sandbox, "GET", CREATE, { credentials: a });
    const journal = await call(sandbox, "GET", "/_sandbox/requests", { credentials: a });
    expect(journal.status).toBe(200);
    expect(journal.body.requests).toHaveLength(1);
    expect(journal.body.requests[0]).toMatchObject({ method: "GET", operationId: "listEvmAccounts", status: 200 });
  });

  it("resets one project without touching another", async () => {
    const a = (await call(sandbox, "POST", "/_sandbox/projects", { anonymous: true, body: {} })).body;
    const b = (await call(sandbox, "POST", "/_sandbox/projects", { anonymous: true, body: {} })).body;
    await call(sandbox, "POST", CREATE, { credentials: a, body: { name: "reset-a" }, wallet: true });
    await call(sandbox, "POST", CREATE, { credentials: b, body: { name: "reset-b" }, wallet: true });
    const reset = await call(sandbox, "POST", "/_sandbox/reset", { credentials: a });
    expect(reset.body).toMatchObject({ reset: "project", projectId: a.projectId });
    expect((await call(sandbox, "GET", CREATE, { credentials: a })).body.accounts).toEqual([]);
    expect((await call(sandbox, "GET", CREATE, { credentials: b })).body.accounts).toHaveLength(1);
  });

  it("restores a snapshot", async () => {
    const a = (await call(sandbox, "POST", "/_sandbox/projects", { anonymous: true, body: {} })).body;
    await call(sandbox, "POST", CREATE, { credentials: a, body: { name: "snap-1" }, wallet: true });
    const snap = await call(sandbox, "POST", "/_sandbox/snapshots", { credentials: a });
    expect(snap.status).toBe(201);
    await call(sandbox, "POST", CREATE, { credentials: a, body: { name: "snap-2" }, wallet: true });
    expect((await call(sandbox, "GET", CREATE, { credentials: a })).body.accounts).toHaveLength(2);
    const restored = await call(sandbox, "POST", `/_sandbox/snapshots/${snap.body.snapshotId}/restore`, { credentials: a });
    expect(restored.status).toBe(200);
    expect((await call(sandbox, "GET", CREATE, { credentials: a })).body.accounts.map((x: { name: string }) => x.name)).toEqual(["snap-1"]);
    const missing = await call(sandbox, "POST", "/_sandbox/snapshots/snap_nope/restore", { credentials: a });
    expect(missing.status).toBe(404);
    expect(missing.body.errorType).toBe("not_found");
  });

  it("leaves the store unchanged when a handler fails", async () => {
    const res = await call(sandbox, "DELETE", `${CREATE}/0x742d35Cc6634C0532925a3b844Bc454e4438f44e`, { wallet: true });
    if (res.status === 404) return; // the contract has no such operation; nothing to check
    expect(res.status).toBe(500);
    expect(res.body.errorType).toBe("internal_server_error");
    expect(res.text).not.toMatch(/boom|at .*\.ts/);
  });
});

describe("state in a file", () => {
  it("survives a restart, credentials included", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cdp-sandbox-"));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, "state.json");
    const first = await withSandbox({ data: file, handlers: recordingHandlers() });
    const created = await call(first, "POST", CREATE, { body: { name: "persisted" }, wallet: true });
    expect(created.status).toBe(201);
    const credentials = first.credentials;
    await first.close();
    expect(JSON.parse(readFileSync(file, "utf8")).projects[credentials.projectId]).toBeDefined();

    const second = await withSandbox({ data: file, handlers: recordingHandlers() });
    try {
      expect(second.credentials.apiKeyId).toBe(credentials.apiKeyId);
      const list = await call(second, "GET", CREATE);
      expect(list.body.accounts.map((x: { name: string }) => x.name)).toEqual(["persisted"]);
    } finally {
      await second.close();
    }
  });
});

describe("state in a file with a seed", () => {
  const created = async (sandbox: Sandbox) => {
    const customer = await call(sandbox, "POST", "/platform/v2/customers", { body: { type: "individual" } });
    const account = await call(sandbox, "POST", "/platform/v2/accounts", { body: { name: "Treasury" } });
    const evm = await call(sandbox, "POST", CREATE, { body: {}, wallet: true });
    expect([customer.status, account.status, evm.status]).toEqual([201, 200, 201]);
    return { customer: customer.body, account: account.body, evm: evm.body };
  };
  const read = async (sandbox: Sandbox, made: Awaited<ReturnType<typeof created>>) => ({
    customer: (await call(sandbox, "GET", `/platform/v2/customers/${made.customer.customerId}`)).body,
    account: (await call(sandbox, "GET", `/platform/v2/accounts/${made.account.accountId}`)).body,
    evm: (await call(sandbox, "GET", `${CREATE}/${made.evm.address}`)).body,
  });

  it("never repeats an id after a restart: creates make new records and the stored ones stay as they were", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cdp-sandbox-"));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, "state.json");
    const first = await withSandbox({ data: file, seed: "restart-ids" });
    const before = await created(first);
    await first.close();

    const second = await withSandbox({ data: file, seed: "restart-ids" });
    onTestFinished(() => second.close());
    const after = await created(second);
    expect(after.customer.customerId).not.toBe(before.customer.customerId);
    expect(after.account.accountId).not.toBe(before.account.accountId);
    expect(after.evm.address).not.toBe(before.evm.address);
    expect(await read(second, before)).toEqual(before);
    expect((await call(second, "GET", "/platform/v2/accounts")).body.accounts).toHaveLength(2);
  });

  it("draws the same ids on the first start with a file as without one", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cdp-sandbox-"));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const inFile = await withSandbox({ data: join(dir, "state.json"), seed: "restart-ids" });
    onTestFinished(() => inFile.close());
    const inMemory = await withSandbox({ seed: "restart-ids" });
    onTestFinished(() => inMemory.close());
    const [a, b] = [await created(inFile), await created(inMemory)];
    expect(a.customer.customerId).toBe(b.customer.customerId);
    expect(a.account.accountId).toBe(b.account.accountId);
    expect(a.evm.address).toBe(b.evm.address);
  });
});

describe("the clock", () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await withSandbox();
  });
  afterAll(() => sandbox.close());

  it("can be frozen, set and advanced", async () => {
    const frozen = await call(sandbox, "POST", "/_sandbox/clock", { anonymous: true, body: { freeze: true, set: "2030-01-01T00:00:00.000Z" } });
    expect(frozen.status).toBe(200);
    expect(frozen.body).toMatchObject({ now: "2030-01-01T00:00:00.000Z", frozen: true });
    const advanced = await call(sandbox, "POST", "/_sandbox/clock", { anonymous: true, body: { advance: "1h30m" } });
    expect(advanced.body.now).toBe("2030-01-01T01:30:00.000Z");
    expect(sandbox.clock.now()).toBe(Date.parse("2030-01-01T01:30:00.000Z"));
    const read = await call(sandbox, "GET", "/_sandbox/clock", { anonymous: true });
    expect(read.body.now).toBe("2030-01-01T01:30:00.000Z");
    await call(sandbox, "POST", "/_sandbox/clock", { anonymous: true, body: { freeze: false } });
    expect(sandbox.clock.frozen).toBe(false);
  });

  it("rejects a bad duration without changing anything", async () => {
    const before = (await call(sandbox, "POST", "/_sandbox/clock", { anonymous: true, body: { freeze: true } })).body.now;
    const res = await call(sandbox, "POST", "/_sandbox/clock", { anonymous: true, body: { set: "2031-01-01T00:00:00Z", advance: "soon" } });
    expect(res.status).toBe(400);
    expect(res.body.errorType).toBe("invalid_request");
    expect((await call(sandbox, "GET", "/_sandbox/clock", { anonymous: true })).body.now).toBe(before);
  });

  it("does not affect token validity", async () => {
    await call(sandbox, "POST", "/_sandbox/clock", { anonymous: true, body: { advance: "30d" } });
    const res = await call(sandbox, "GET", CREATE);
    expect(res.status).toBe(200);
  });
});

describe("admin writes and platform requests in flight", () => {
  const HOLDER = "0x000000000000000000000000000000000000dEaD";
  /** The handler below signals `entered` and waits for `release`; each test arms a fresh pair. */
  let entered: () => void = () => undefined;
  let gate: Promise<void> = Promise.resolve();
  function arm() {
    let release!: () => void;
    gate = new Promise<void>((resolve) => (release = resolve));
    const inHandler = new Promise<void>((resolve) => (entered = resolve));
    return { inHandler, release };
  }
  /** Unlocked, the admin call would be answered at once; locked, it is still waiting when this resolves. */
  const stillWaiting = (admin: Promise<unknown>) =>
    Promise.race([admin.then(() => "admin answered"), new Promise((r) => setTimeout(() => r("admin waiting"), 250))]);

  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await withSandbox({
      handlers: {
        // Reads a balance, waits, then writes it back lowered by 50: a read-check-write spanning an await, as real handlers have.
        createEvmAccount: async (_req, ctx) => {
          const before = balanceOf(ctx.store, "base-sepolia", NATIVE_TOKEN_ADDRESS, HOLDER);
          entered();
          await gate;
          setBalance(ctx.store, "base-sepolia", NATIVE_TOKEN_ADDRESS, HOLDER, before - 50n);
          return { status: 201, body: { address: HOLDER, createdAt: ctx.clock.iso(), updatedAt: ctx.clock.iso() } };
        },
      },
    });
  });
  afterAll(() => sandbox.close());

  it("a credit through /_sandbox/balances waits for the project's write in flight, so neither is lost", async () => {
    await fund(sandbox, { network: "base-sepolia", address: HOLDER, amount: "1000" });
    const { inHandler, release } = arm();
    const platform = call(sandbox, "POST", CREATE, { body: { name: "slow" }, wallet: true }).then((r) => r);
    await inHandler;
    const admin = call(sandbox, "POST", "/_sandbox/balances", { body: { network: "base-sepolia", address: HOLDER, amount: "100" } }).then((r) => r);
    expect(await stillWaiting(admin)).toBe("admin waiting");
    release();
    expect((await platform).status).toBe(201);
    const credited = await admin;
    expect(credited.status).toBe(200);
    expect(credited.body.balance).toBe("1050");
    expect((await fund(sandbox, { network: "base-sepolia", address: HOLDER, amount: "0" })).balance).toBe("1050");
  });

  it("a reset waits for the project's write in flight, and nothing of that write survives it", async () => {
    await fund(sandbox, { network: "base-sepolia", address: HOLDER, amount: "500" });
    const { inHandler, release } = arm();
    const platform = call(sandbox, "POST", CREATE, { body: { name: "slow" }, wallet: true }).then((r) => r);
    await inHandler;
    const reset = call(sandbox, "POST", "/_sandbox/reset", { body: {} }).then((r) => r);
    expect(await stillWaiting(reset)).toBe("admin waiting");
    release();
    expect((await platform).status).toBe(201);
    expect((await reset).body).toMatchObject({ reset: "project" });
    expect((await fund(sandbox, { network: "base-sepolia", address: HOLDER, amount: "0" })).balance).toBe("0");
  });
});
