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
