/**
 * Webhook events caused by flows driven with @coinbase/cdp-sdk: a
 * subscription made with cdp.webhooks.createSubscription receives, signed,
 * the transfer events of cdp.transfers, the wallet events of cdp.evm and
 * cdp.solana signing and sending (confirmed once the clock mines the block),
 * and the delegation and signing events of cdp.endUser.
 */
import { createHmac } from "node:crypto";
import type { CdpClient } from "@coinbase/cdp-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSandbox, type Sandbox } from "cdp-sandbox";
import { startReceiver, type Receiver } from "#test/helpers/receiver.js";
import { call, endUserSession } from "#test/helpers/sandbox.js";
import { cdpClientFor } from "#test/helpers/cdpClient.js";

let sandbox: Sandbox;
let cdp: CdpClient;
let receiver: Receiver;
beforeAll(async () => {
  // Interval mining: these tests see a send confirmed only once the clock mines its block.
  sandbox = await startSandbox({ port: 0, seed: "sdk-webhook-events", validateResponses: true, mining: "interval" });
  sandbox.clock.freeze(true);
  cdp = cdpClientFor(sandbox);
  receiver = await startReceiver();
});
afterAll(async () => {
  await sandbox.close();
  await receiver.close();
});

const TO = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
let paths = 0;
const flush = () => fetch(`${sandbox.url}/_sandbox/webhooks/flush`, { method: "POST" });

/** A subscription made with the client, and what reached it (signature checked), in the order the sandbox emitted it. */
async function subscription(eventTypes: string[]) {
  const path = `/sdk-events/${++paths}`;
  const sub = await cdp.webhooks.createSubscription({ eventTypes: eventTypes as never, targetUrl: receiver.url(path) });
  return async () => {
    const listed = (await (await fetch(`${sandbox.url}/_sandbox/webhooks/deliveries?subscriptionId=${sub.subscriptionId}`)).json()) as {
      deliveries: Array<{ eventId: string }>;
    };
    const order = listed.deliveries.map((d) => d.eventId).reverse();
    return receiver
      .received(path)
      .map((r) => {
        const parts = Object.fromEntries(
          String(r.headers["x-hook0-signature"])
            .split(",")
            .map((p) => p.split("=") as [string, string]),
        );
        const values = parts
          .h!.split(" ")
          .map((n) => String(r.headers[n]))
          .join(".");
        expect(createHmac("sha256", sub.secret!).update(`${parts.t}.${parts.h}.${values}.${r.rawBody}`).digest("hex")).toBe(parts.v1);
        return { id: String(r.headers["x-event-id"]), type: String(r.headers["x-event-type"]), body: JSON.parse(r.rawBody) };
      })
      .sort((a, b) => order.indexOf(a.id) - order.indexOf(b.id));
  };
}

describe("webhook events of flows driven by @coinbase/cdp-sdk", () => {
  it("cdp.transfers: a quote executed and settled arrives as quoted, processing, completed", async () => {
    const received = await subscription(["payments.transfers.quoted", "payments.transfers.processing", "payments.transfers.completed"]);
    const from = await cdp.accounts.createAccount({});
    const to = await cdp.accounts.createAccount({});
    await call(sandbox, "POST", `/_sandbox/accounts/${from.accountId}/fund`, { body: { asset: "usdc", amount: "50" } });
    const quote = await cdp.transfers.createTransfer({
      source: { accountId: from.accountId, asset: "usdc" },
      target: { accountId: to.accountId, asset: "usdc" },
      amount: "20",
      asset: "usdc",
      execute: false,
    });
    await cdp.transfers.executeFundTransfer({ transferId: quote.transferId! });
    sandbox.clock.advance(5000);
    const done = await cdp.transfers.getTransferById({ transferId: quote.transferId! });
    await flush();
    const got = await received();
    expect(got.map((e) => [e.type, e.body.data.status])).toEqual([
      ["payments.transfers.quoted", "quoted"],
      ["payments.transfers.processing", "processing"],
      ["payments.transfers.completed", "completed"],
    ]);
    expect(got[2]!.body).toMatchObject({
      eventID: got[2]!.id,
      timestamp: done.completedAt,
      data: { transferId: quote.transferId, completedAt: done.completedAt },
    });
  });

  it("cdp.evm and cdp.solana: signatures, and a send confirmed once its block is mined", async () => {
    const received = await subscription(["wallet.message.signed", "wallet.typed_data.signed", "wallet.transaction.broadcast", "wallet.transaction.confirmed"]);
    const account = await cdp.evm.createAccount();
    await cdp.evm.signMessage({ address: account.address, message: "hello" });
    await account.requestFaucet({ network: "base-sepolia", token: "eth" });
    const { transactionHash } = await cdp.evm.sendTransaction({ address: account.address, network: "base-sepolia", transaction: { to: TO, value: 1000n } });
    const sol = await cdp.solana.createAccount();
    await cdp.solana.signMessage({ address: sol.address, message: "gm" });
    sandbox.clock.advance(2000);
    await flush();
    const got = await received();
    expect(got.map((e) => e.type)).toEqual(["wallet.message.signed", "wallet.transaction.broadcast", "wallet.message.signed", "wallet.transaction.confirmed"]);
    expect(got[0]!.body).toEqual({ address: account.address, signed_at: expect.any(String) });
    expect(got[1]!.body).toMatchObject({ transaction_hash: transactionHash, address: account.address, network: "base-sepolia" });
    expect(got[2]!.body).toEqual({ address: sol.address, signed_at: expect.any(String) });
    expect(got[3]!.body).toEqual({ transaction_hash: transactionHash, address: account.address, network: "base-sepolia", confirmed_at: expect.any(String) });
  });

  it("cdp.endUser: signing under a grant names the grant; revoking it is announced", async () => {
    const received = await subscription(["wallet.delegation.created", "wallet.delegation.revoked", "wallet.message.signed"]);
    const user = await cdp.endUser.createEndUser({ authenticationMethods: [{ type: "email", email: "hooks@example.com" }] });
    const address = user.evmAccounts[0]! as `0x${string}`;
    const session = await endUserSession(sandbox, user.userId);
    const expiresAt = new Date(sandbox.clock.now() + 3600_000).toISOString();
    await call(sandbox, "POST", `/platform/v2/embedded-wallet-api/end-users/${user.userId}/address/${address}/delegation`, {
      body: { expiresAt },
      endUser: session,
    });
    await cdp.endUser.signEvmMessage({ userId: user.userId, address, message: "for the user" });
    await cdp.endUser.revokeDelegationForEndUserAccount({ userId: user.userId, address });
    await flush();
    const got = await received();
    expect(got.map((e) => e.type)).toEqual(["wallet.delegation.created", "wallet.message.signed", "wallet.delegation.revoked"]);
    const delegationId = got[0]!.body.delegation_id;
    expect(got[0]!.body).toMatchObject({ user_id: user.userId, expires_at: expiresAt });
    expect(got[1]!.body).toEqual({ address, signed_at: expect.any(String), user_id: user.userId, delegation_id: delegationId });
    expect(got[2]!.body).toEqual({ delegation_id: delegationId, user_id: user.userId, revoked_at: expect.any(String) });
  });
});
