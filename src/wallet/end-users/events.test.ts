/**
 * End users' webhooks over HTTP: delegation grants created and revoked, and
 * the wallet.* events of their accounts, naming the end user (their own
 * token) or the end user and the grant (the developer acting for them).
 */
import { serializeTransaction } from "viem";
import { describe, expect, it } from "vitest";
import { call, endUserSession, fund, type EndUserSession } from "#test/helpers/sandbox.js";
import { deliveredTo, flush, subscribe, sandboxWithReceiver } from "#test/helpers/webhooks.js";

const EW = "/platform/v2/embedded-wallet-api/end-users";
const DELEGATION = ["wallet.delegation.created", "wallet.delegation.revoked"];

const { sandbox, receiver } = await sandboxWithReceiver({ seed: "end-user-events", validateResponses: true });

let n = 0;
async function newUser() {
  const userId = `eue-${++n}`;
  await call(sandbox, "POST", "/platform/v2/end-users", {
    body: { userId, authenticationMethods: [{ type: "email", email: `${userId}@example.com` }], solanaAccount: {} },
    wallet: true,
  });
  const user = (await call(sandbox, "GET", `/platform/v2/end-users/${userId}`)).body;
  return { userId, evm: user.evmAccounts[0] as string, sol: user.solanaAccounts[0] as string, session: await endUserSession(sandbox, userId) };
}
const iso = (ms = sandbox.clock.now()) => new Date(ms).toISOString();
const asUser = (session: EndUserSession) => ({ endUser: session });

describe("delegation webhooks", () => {
  it("announce a grant made by the end user and its revocation, with the grant's id, the user and the times", async () => {
    const sub = await subscribe(sandbox, receiver, DELEGATION);
    const u = await newUser();
    const expiresAt = iso(sandbox.clock.now() + 3600_000);
    const createdAt = iso();
    expect((await call(sandbox, "POST", `${EW}/${u.userId}/address/${u.evm}/delegation`, { body: { expiresAt }, ...asUser(u.session) })).status).toBe(201);
    sandbox.clock.advance(60_000);
    expect((await call(sandbox, "DELETE", `${EW}/${u.userId}/address/${u.evm}/delegation`, { body: {}, ...asUser(u.session) })).status).toBe(204);
    expect((await call(sandbox, "DELETE", `${EW}/${u.userId}/address/${u.evm}/delegation`, { body: {}, ...asUser(u.session) })).status).toBe(404); // nothing left to revoke: no event
    await flush(sandbox);
    const got = await deliveredTo(sandbox, receiver, sub);
    expect(got.map((e) => e.eventType)).toEqual(DELEGATION);
    const delegationId = got[0]!.body.delegation_id as string;
    expect(delegationId).toMatch(/^delegation_[0-9a-f-]{36}$/);
    expect(got[0]!.body).toEqual({ delegation_id: delegationId, user_id: u.userId, expires_at: expiresAt, created_at: createdAt });
    expect(got[1]!.body).toEqual({ delegation_id: delegationId, user_id: u.userId, revoked_at: iso() });
  });

  it("announce a project-wide grant made through the sandbox's sign-in stand-in, and nothing when a second grant is refused or a grant expires", async () => {
    const sub = await subscribe(sandbox, receiver, DELEGATION);
    const u = await newUser();
    const expiresAt = iso(sandbox.clock.now() + 60_000);
    expect((await call(sandbox, "POST", `/_sandbox/end-users/${u.userId}/delegation`, { body: { expiresAt } })).status).toBe(201);
    expect((await call(sandbox, "POST", `/_sandbox/end-users/${u.userId}/delegation`, { body: { expiresAt } })).status).toBe(409);
    sandbox.clock.advance(120_000);
    await call(sandbox, "GET", `/platform/v2/end-users/${u.userId}`);
    await flush(sandbox);
    const got = await deliveredTo(sandbox, receiver, sub);
    expect(got.map((e) => e.body)).toEqual([
      { delegation_id: expect.stringMatching(/^delegation_/), user_id: u.userId, expires_at: expiresAt, created_at: expect.any(String) },
    ]);
  });
});

describe("wallet webhooks of end users' accounts", () => {
  it("name the end user when they sign with their own token", async () => {
    const sub = await subscribe(sandbox, receiver, ["wallet.message.signed", "wallet.typed_data.signed"]);
    const u = await newUser();
    expect((await call(sandbox, "POST", `${EW}/${u.userId}/evm/sign/message`, { body: { address: u.evm, message: "hi" }, ...asUser(u.session) })).status).toBe(
      200,
    );
    expect(
      (await call(sandbox, "POST", `${EW}/${u.userId}/solana/sign/message`, { body: { address: u.sol, message: "gm" }, ...asUser(u.session) })).status,
    ).toBe(200);
    await flush(sandbox);
    const got = await deliveredTo(sandbox, receiver, sub);
    expect(got.map((e) => e.body)).toEqual([
      { address: u.evm, signed_at: iso(), user_id: u.userId },
      { address: u.sol, signed_at: iso(), user_id: u.userId },
    ]);
  });

  it("name the end user and the grant when the developer sends under a delegation, through to confirmation", async () => {
    const sub = await subscribe(sandbox, receiver, [
      "wallet.delegation.created",
      "wallet.transaction.created",
      "wallet.transaction.signed",
      "wallet.transaction.broadcast",
      "wallet.transaction.confirmed",
    ]);
    const u = await newUser();
    await fund(sandbox, { network: "base-sepolia", address: u.evm, amount: "1000000000000000" });
    await call(sandbox, "POST", `${EW}/${u.userId}/address/${u.evm}/delegation`, {
      body: { expiresAt: iso(sandbox.clock.now() + 3600_000) },
      ...asUser(u.session),
    });
    const transaction = serializeTransaction({ type: "eip1559", chainId: 84532, to: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8", value: 1000n });
    const res = await call(sandbox, "POST", `${EW}/${u.userId}/evm/send/transaction`, { body: { address: u.evm, network: "base-sepolia", transaction } });
    expect(res.status).toBe(200);
    sandbox.clock.advance(4_000);
    await flush(sandbox);
    const got = await deliveredTo(sandbox, receiver, sub);
    expect(got.map((e) => e.eventType)).toEqual([
      "wallet.delegation.created",
      "wallet.transaction.created",
      "wallet.transaction.signed",
      "wallet.transaction.broadcast",
      "wallet.transaction.confirmed",
    ]);
    const actor = { user_id: u.userId, delegation_id: got[0]!.body.delegation_id };
    for (const e of got.slice(1)) expect(e.body).toMatchObject(actor);
    expect(got[4]!.body).toEqual({
      transaction_hash: res.body.transactionHash,
      address: u.evm,
      network: "base-sepolia",
      confirmed_at: expect.any(String),
      ...actor,
    });
  });

  it("send nothing when the developer has no grant to act under", async () => {
    const sub = await subscribe(sandbox, receiver, ["wallet.message.signed"]);
    const u = await newUser();
    const res = await call(sandbox, "POST", `${EW}/${u.userId}/evm/sign/message`, { body: { address: u.evm, message: "hi" } });
    expect(res.body.errorType).toBe("delegation_not_found");
    await flush(sandbox);
    expect(receiver.received(sub.path)).toHaveLength(0);
  });
});
