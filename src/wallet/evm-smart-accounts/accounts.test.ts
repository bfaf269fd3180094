import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getAddress } from "viem";
import type { Sandbox } from "cdp-sandbox";
import { call, withSandbox } from "#test/helpers/sandbox.js";

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await withSandbox({ seed: "smart-accounts" });
});
afterAll(() => sandbox.close());

const SMART = "/platform/v2/evm/smart-accounts";
const EXTERNAL_OWNER = "0x70997970c51812dc3a010c7d01b50e0d17dc79c8"; // lowercase on purpose: echoed as submitted
const MANAGER = "0xf85210B21cC50302F477BA56686d2019dC9b67Ad"; // the SpendPermissionManager

describe("EVM smart accounts", () => {
  it("creates one for a sandbox EVM account, with a deterministic counterfactual address", async () => {
    const owner = (await call(sandbox, "POST", "/platform/v2/evm/accounts", { body: {}, wallet: true })).body.address;
    const res = await call(sandbox, "POST", SMART, { body: { owners: [owner], name: "smart-main" } });
    expect(res.status).toBe(201);
    expect(res.body.address).toBe(getAddress(res.body.address));
    expect(res.body.owners).toEqual([owner]);
    expect(res.body.name).toBe("smart-main");
    const other = await sandbox.createProject("other");
    const elsewhere = await call(sandbox, "POST", SMART, { body: { owners: [owner] }, credentials: other });
    expect(elsewhere.body.address).toBe(res.body.address); // same owners, same address
  });

  it("echoes an external owner exactly and gives a second account with the same owner a new address", async () => {
    const first = await call(sandbox, "POST", SMART, { body: { owners: [EXTERNAL_OWNER] } });
    const second = await call(sandbox, "POST", SMART, { body: { owners: [EXTERNAL_OWNER] } });
    expect(first.body.owners).toEqual([EXTERNAL_OWNER]);
    expect(second.body.address).not.toBe(first.body.address);
  });

  it("insists on exactly one owner", async () => {
    const res = await call(sandbox, "POST", SMART, { body: { owners: [] } });
    expect(res.status).toBe(400);
    expect(res.body.errorMessage).toMatch(/owner/);
  });

  it("enables spend permissions with the SpendPermissionManager as second owner, at an address that follows the owners", async () => {
    const owner = (await call(sandbox, "POST", "/platform/v2/evm/accounts", { body: {}, wallet: true })).body.address;
    const withManager = await call(sandbox, "POST", SMART, { body: { owners: [owner, MANAGER] } });
    expect(withManager.status).toBe(201);
    expect(withManager.body.owners).toEqual([owner, MANAGER]);
    const alone = await call(sandbox, "POST", SMART, { body: { owners: [owner] } });
    expect(alone.body.address).not.toBe(withManager.body.address);
    // The manager is an owner the platform recognises in any case, and the address is the same either way.
    const other = await sandbox.createProject("manager-case");
    const lower = await call(sandbox, "POST", SMART, { body: { owners: [owner, MANAGER.toLowerCase()] }, credentials: other });
    expect(lower.body.address).toBe(withManager.body.address);
  });

  it("refuses any other owner list, and creates nothing", async () => {
    const owner = (await call(sandbox, "POST", "/platform/v2/evm/accounts", { body: {}, wallet: true })).body.address;
    const before = (await call(sandbox, "GET", `${SMART}?pageSize=100`)).body.accounts.length;
    for (const owners of [[owner, EXTERNAL_OWNER], [MANAGER], [MANAGER, owner], [owner, MANAGER, EXTERNAL_OWNER]]) {
      const res = await call(sandbox, "POST", SMART, { body: { owners } });
      expect(res.status, JSON.stringify(owners)).toBe(400);
      expect(res.body.errorType).toBe("invalid_request");
    }
    expect((await call(sandbox, "GET", `${SMART}?pageSize=100`)).body.accounts).toHaveLength(before);
  });

  it("gets by address and name, lists, renames, and 404s/409s like the rest", async () => {
    const created = (await call(sandbox, "POST", SMART, { body: { owners: [EXTERNAL_OWNER], name: "smart-lookup" } })).body;
    expect((await call(sandbox, "GET", `${SMART}/${created.address.toLowerCase()}`)).body.name).toBe("smart-lookup");
    expect((await call(sandbox, "GET", `${SMART}/by-name/smart-lookup`)).body.address).toBe(created.address);
    expect((await call(sandbox, "GET", SMART)).body.accounts.map((a: { address: string }) => a.address)).toContain(created.address);
    expect((await call(sandbox, "PUT", `${SMART}/${created.address}`, { body: { name: "smart-renamed" } })).body.name).toBe("smart-renamed");
    expect((await call(sandbox, "POST", SMART, { body: { owners: [EXTERNAL_OWNER], name: "smart-renamed" } })).status).toBe(409);
    expect((await call(sandbox, "GET", `${SMART}/by-name/nobody`)).status).toBe(404);
    expect((await call(sandbox, "GET", `${SMART}/0x${"34".repeat(20)}`)).status).toBe(404);
  });
});
