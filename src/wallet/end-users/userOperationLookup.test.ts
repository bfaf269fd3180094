/**
 * Reading a user operation of an end user's smart account: by the end user,
 * or by the developer under a delegation grant; broadcast until its block is
 * mined on the sandbox clock, then complete with its receipt.
 */
import type { Sandbox } from "cdp-sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, endUserSession, withSandbox } from "#test/helpers/sandbox.js";

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await withSandbox({ seed: "end-user-operation-lookup", mining: "interval" });
  sandbox.clock.freeze(true);
});
afterAll(() => sandbox.close());

const EW = "/platform/v2/embedded-wallet-api/end-users";

async function userWithSmart(userId: string) {
  const created = await call(sandbox, "POST", "/platform/v2/end-users", {
    body: { userId, authenticationMethods: [{ type: "email", email: `${userId}@example.com` }], evmAccount: { createSmartAccount: true } },
    wallet: true,
  });
  return { userId, session: await endUserSession(sandbox, userId), smart: created.body.evmSmartAccounts[0] as string };
}

describe("the user operations of an end user's smart account", () => {
  it("are read by hash, broadcast until included and complete after", async () => {
    const u = await userWithSmart("lookup-1");
    const sent = await call(sandbox, "POST", `${EW}/${u.userId}/evm/smart-accounts/${u.smart}/send`, {
      body: { network: "base-sepolia", useCdpPaymaster: true, calls: [{ to: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8", value: "0", data: "0x" }] },
      endUser: u.session,
    });
    expect(sent.status).toBe(200);
    const path = `${EW}/${u.userId}/evm/smart-accounts/${u.smart}/user-operations/${sent.body.userOpHash}`;
    const pending = await call(sandbox, "GET", path, { endUser: u.session });
    expect(pending.status).toBe(200);
    expect(pending.body).toMatchObject({ userOpHash: sent.body.userOpHash, network: "base-sepolia", status: "broadcast", calls: sent.body.calls });
    expect(pending.body.receipts).toBeUndefined();
    sandbox.clock.advance(4000);
    const done = await call(sandbox, "GET", path, { endUser: u.session });
    expect(done.body.status).toBe("complete");
    expect(done.body.receipts).toEqual([expect.objectContaining({ transactionHash: sent.body.transactionHash ?? done.body.transactionHash })]);
  });

  it("are the end user's to read, or the developer's under a grant", async () => {
    const u = await userWithSmart("lookup-2");
    const other = await userWithSmart("lookup-3");
    const sent = await call(sandbox, "POST", `${EW}/${u.userId}/evm/smart-accounts/${u.smart}/send`, {
      body: { network: "base-sepolia", useCdpPaymaster: true, calls: [{ to: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8", value: "0", data: "0x" }] },
      endUser: u.session,
    });
    const path = `${EW}/${u.userId}/evm/smart-accounts/${u.smart}/user-operations/${sent.body.userOpHash}`;
    expect((await call(sandbox, "GET", path, { endUser: other.session })).status).toBe(401);
    const developer = await call(sandbox, "GET", path);
    expect(developer.status).toBe(403);
    expect(developer.body.errorType).toBe("delegation_not_found");
    const expiresAt = new Date(sandbox.clock.now() + 3600_000).toISOString();
    expect((await call(sandbox, "POST", `${EW}/${u.userId}/address/${u.smart}/delegation`, { body: { expiresAt }, endUser: u.session })).status).toBe(201);
    expect((await call(sandbox, "GET", path)).status).toBe(200);
    const elsewhere = await call(sandbox, "GET", `${EW}/${other.userId}/evm/smart-accounts/${other.smart}/user-operations/${sent.body.userOpHash}`, {
      endUser: other.session,
    });
    expect(elsewhere.status).toBe(404);
  });
});
