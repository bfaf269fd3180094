/**
 * acceptance.payment_session.* webhooks over HTTP: each transition of a real
 * session is delivered once, in order, signed, with the session as it stood
 * and the action that moved it, stamped with the sandbox time it happened.
 * Refused requests send nothing.
 */
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { describe, expect, it } from "vitest";
import { createSession, fundUsdc, LANDS_MS, payFromWallet, PS } from "#test/helpers/paymentSessions.js";
import { call } from "#test/helpers/sandbox.js";
import { deliveredTo, flush, sandboxWithReceiver, subscribe } from "#test/helpers/webhooks.js";

const { sandbox, receiver } = await sandboxWithReceiver({ seed: "payment-session-events" });

const STATUSES = ["created", "canceled", ...["authorization", "capture", "void", "refund"].flatMap((a) => [`${a}_pending`, `${a}_succeeded`, `${a}_failed`])];
const ALL = STATUSES.map((s) => `acceptance.payment_session.${s}`);

describe("payment session webhooks", () => {
  it("announce creation, authorization, a partial capture and a void, once each, in order, with the action that moved the session", async () => {
    const sub = await subscribe(sandbox, receiver, ALL);
    const payer = privateKeyToAccount(generatePrivateKey());
    await fundUsdc(sandbox, payer.address, "10000000");
    const t0 = sandbox.clock.now();
    const s = await createSession(sandbox, privateKeyToAccount(generatePrivateKey()).address, "10");
    const id = s.paymentSessionId;
    const { res: authorized } = await payFromWallet(sandbox, id, payer);
    sandbox.clock.advance(LANDS_MS);
    const captured = await call(sandbox, "POST", `${PS}/${id}/captures`, { body: { amount: "4", finalCapture: false } });
    // Refused: it sends nothing.
    expect((await call(sandbox, "POST", `${PS}/${id}/captures`, { body: { finalCapture: false } })).status).toBe(400);
    sandbox.clock.advance(LANDS_MS);
    const voided = await call(sandbox, "POST", `${PS}/${id}/voids`, { body: {} });
    sandbox.clock.advance(LANDS_MS);
    await call(sandbox, "GET", `${PS}/${id}`); // brings the session up to date
    await flush(sandbox);

    const events = await deliveredTo(sandbox, receiver, sub);
    expect(events.map((e) => e.eventType)).toEqual([
      "acceptance.payment_session.created",
      "acceptance.payment_session.authorization_pending",
      "acceptance.payment_session.authorization_succeeded",
      "acceptance.payment_session.capture_pending",
      "acceptance.payment_session.capture_succeeded",
      "acceptance.payment_session.void_pending",
      "acceptance.payment_session.void_succeeded",
    ]);
    for (const e of events) expect(e.body).toMatchObject({ eventId: e.eventId, eventType: e.eventType, data: { paymentSession: { paymentSessionId: id } } });
    const at = (ms: number) => new Date(t0 + ms).toISOString();
    expect(events.map((e) => e.body.timestamp)).toEqual([at(0), at(0), at(LANDS_MS), at(LANDS_MS), at(2 * LANDS_MS), at(2 * LANDS_MS), at(3 * LANDS_MS)]);
    expect(events[2]!.body.data).toMatchObject({
      paymentSession: { status: "authorization_succeeded", balances: { capturable: "10.00" }, source: { address: payer.address } },
      authorization: { authorizationId: authorized.body.authorizationId, status: "succeeded", source: { address: payer.address } },
    });
    expect(events[4]!.body.data).toMatchObject({
      paymentSession: { status: "capture_succeeded", balances: { capturable: "6.00", captured: "4.00" } },
      capture: { captureId: captured.body.captureId, status: "succeeded", amount: "4.00" },
    });
    expect(events[6]!.body.data).toMatchObject({ void: { voidId: voided.body.voidId, status: "succeeded", amount: "6.00" } });
  });

  it("announce a canceled session, and a failed authorization with its error", async () => {
    const sub = await subscribe(sandbox, receiver, ["acceptance.payment_session.canceled", "acceptance.payment_session.authorization_failed"]);
    const canceled = await createSession(sandbox, privateKeyToAccount(generatePrivateKey()).address);
    await call(sandbox, "POST", `${PS}/${canceled.paymentSessionId}/cancel`, { body: { cancellationReason: "out of stock" } });
    // Two sessions signed for the same funds: the second fails when it lands.
    const payer = privateKeyToAccount(generatePrivateKey());
    await fundUsdc(sandbox, payer.address, "1000000");
    // Authorized in the opposite order of their ids, so that only the order of submission decides which lands first.
    const [one, two] = [
      await createSession(sandbox, privateKeyToAccount(generatePrivateKey()).address, "1"),
      await createSession(sandbox, privateKeyToAccount(generatePrivateKey()).address, "1"),
    ].sort((a, b) => b.paymentSessionId.localeCompare(a.paymentSessionId));
    await payFromWallet(sandbox, one.paymentSessionId, payer);
    await payFromWallet(sandbox, two.paymentSessionId, payer);
    sandbox.clock.advance(LANDS_MS);
    await call(sandbox, "GET", PS);
    await flush(sandbox);
    const events = await deliveredTo(sandbox, receiver, sub);
    expect(events.map((e) => [e.eventType, e.body.data.paymentSession.paymentSessionId])).toEqual([
      ["acceptance.payment_session.canceled", canceled.paymentSessionId],
      ["acceptance.payment_session.authorization_failed", two.paymentSessionId],
    ]);
    expect(events[0]!.body.data.paymentSession.status).toBe("canceled");
    expect(events[1]!.body.data.authorization).toMatchObject({ status: "failed", error: { code: "insufficient_funds" } });
  });
});
