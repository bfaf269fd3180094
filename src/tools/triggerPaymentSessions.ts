/**
 * `trigger`'s flows for the acceptance.payment_session.* events: a session
 * paid from a payer's wallet (the EIP-3009 authorization signed as a wallet
 * signs it), then the merchant's capture, void or refund, each landing 2 s
 * of sandbox time later. The failures come from what makes them fail on the
 * ledger: the payer's funds gone before the authorization lands, a capture
 * landing after the session's capture deadline, the refund's source address
 * emptied before the refund lands.
 */
import { encodeFunctionData, erc20Abi } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import type { Json } from "./client.js";
import {
  admin,
  advance,
  anonymous,
  evmAccountWithGas,
  type FlowContext,
  fundedAccount,
  nowIso,
  platform,
  sendTx,
  type Trigger,
  USDC_BASE_SEPOLIA,
  withClockHeld,
} from "./triggerSteps.js";

const PS = "/v2/payment-sessions";
const ONE_USDC = 1_000_000n;

/** A session for 1 USDC on base-sepolia paying `merchant` (a new outside address by default). */
async function paymentSession(f: FlowContext, o: { merchant?: string; expiries?: Record<string, string> } = {}): Promise<string> {
  const merchant = o.merchant ?? privateKeyToAccount(generatePrivateKey()).address;
  const session = await platform(f, "POST", PS, {
    amount: "1.00",
    asset: "usdc",
    target: { address: merchant, network: "base-sepolia" },
    ...(o.expiries ? { expiries: o.expiries } : {}),
  });
  f.say(`created payment session ${session.paymentSessionId} paying ${merchant}`);
  return session.paymentSessionId;
}

/** The wallet option the session offers `payer` (who must hold the amount): an EIP-3009 transfer to the escrow. */
async function walletOption(f: FlowContext, id: string, payer: string): Promise<Json> {
  const options = await anonymous(f, "GET", `${PS}/${id}/authorizations/wallet/options?addresses=${payer}`);
  return options.options[0];
}

const authorize = (f: FlowContext, id: string, option: Json, signature: string) =>
  anonymous(f, "POST", `${PS}/${id}/authorizations/wallet`, {
    optionId: option.optionId,
    signedPayloads: [{ payloadId: option.payloads[0].payloadId, signature }],
  });

/**
 * A session authorized by an outside payer's wallet (the typed data signed with viem, as a wallet does), landed.
 * Answers the session and the escrow the payer paid (the offered transfer's `to`).
 */
async function authorizedSession(f: FlowContext, o: Parameters<typeof paymentSession>[1] = {}): Promise<{ id: string; escrow: `0x${string}` }> {
  const id = await paymentSession(f, o);
  const payer = privateKeyToAccount(generatePrivateKey());
  await admin(f, "POST", "/balances", { network: "base-sepolia", address: payer.address, token: USDC_BASE_SEPOLIA, amount: ONE_USDC.toString() });
  const option = await walletOption(f, id, payer.address);
  const data = option.payloads[0].data;
  const m = data.message;
  const signature = await payer.signTypedData({
    domain: data.domain,
    types: data.types,
    primaryType: data.primaryType,
    message: { ...m, value: BigInt(m.value), validAfter: BigInt(m.validAfter), validBefore: BigInt(m.validBefore) },
  });
  await authorize(f, id, option, signature);
  f.say(`payer ${payer.address} authorized the session`);
  await advance(f, "2s");
  return { id, escrow: m.to };
}

async function sessionAction(f: FlowContext, id: string, action: "captures" | "voids" | "refunds", body: unknown): Promise<void> {
  await platform(f, "POST", `${PS}/${id}/${action}`, body);
  f.say(`requested a ${action.slice(0, -1)}`);
  await advance(f, "2s");
}

/** An ERC-20 call of USDC on base-sepolia sent by one of the project's accounts. */
const usdcCall = (f: FlowContext, from: string, data: `0x${string}`) =>
  sendTx(f, from, "base-sepolia", { type: "eip1559", chainId: 84532, to: USDC_BASE_SEPOLIA, data });

const AUTHORIZED = [
  "acceptance.payment_session.created",
  "acceptance.payment_session.authorization_pending",
  "acceptance.payment_session.authorization_succeeded",
];
const CAPTURED = [...AUTHORIZED, "acceptance.payment_session.capture_pending", "acceptance.payment_session.capture_succeeded"];

export const PAYMENT_SESSION_TRIGGERS: Trigger[] = [
  {
    eventTypes: ["acceptance.payment_session.created", "acceptance.payment_session.canceled"],
    does: "a payment session for 1 USDC on base-sepolia, then canceled by the merchant",
    async run(f) {
      const id = await paymentSession(f);
      await platform(f, "POST", `${PS}/${id}/cancel`, {});
      f.say("canceled it");
    },
  },
  {
    eventTypes: CAPTURED,
    does: "a payment session paid from a payer's wallet (a signed EIP-3009 authorization), then captured in full; each action lands 2 s later",
    async run(f) {
      const { id } = await authorizedSession(f);
      await sessionAction(f, id, "captures", { finalCapture: true });
    },
  },
  {
    eventTypes: [...AUTHORIZED, "acceptance.payment_session.void_pending", "acceptance.payment_session.void_succeeded"],
    does: "a payment session authorized from a payer's wallet, then voided: the escrow returns the amount",
    async run(f) {
      const { id } = await authorizedSession(f);
      await sessionAction(f, id, "voids", {});
    },
  },
  {
    eventTypes: [...CAPTURED, "acceptance.payment_session.refund_pending", "acceptance.payment_session.refund_succeeded"],
    does: "a payment session authorized, captured, then refunded from a funded custodial account",
    async run(f) {
      const { id } = await authorizedSession(f);
      await sessionAction(f, id, "captures", { finalCapture: true });
      const accountId = await fundedAccount(f, "trigger refunds", "10");
      await sessionAction(f, id, "refunds", { source: { accountId, asset: "usdc" } });
    },
  },
  {
    eventTypes: ["acceptance.payment_session.created", "acceptance.payment_session.authorization_pending", "acceptance.payment_session.authorization_failed"],
    does: "a project account holding 1 USDC signs a session's authorization, then sends its USDC elsewhere before the authorization lands: it fails (insufficient_funds); the clock is held still meanwhile",
    run: (f) =>
      withClockHeld(f, async () => {
        const id = await paymentSession(f);
        const payer = await evmAccountWithGas(f, "base-sepolia");
        await admin(f, "POST", "/balances", { network: "base-sepolia", address: payer, token: USDC_BASE_SEPOLIA, amount: ONE_USDC.toString() });
        const option = await walletOption(f, id, payer);
        const { domain, types, primaryType, message } = option.payloads[0].data;
        const { signature } = await platform(f, "POST", `/v2/evm/accounts/${payer}/sign/typed-data`, { domain, types, primaryType, message });
        await authorize(f, id, option, signature);
        f.say(`payer ${payer} authorized the session`);
        const elsewhere = privateKeyToAccount(generatePrivateKey()).address;
        const spent = await usdcCall(f, payer, encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [elsewhere, ONE_USDC] }));
        f.say(`the payer sent its 1 USDC to ${elsewhere} before the authorization landed: ${spent.transactionHash}`);
        await advance(f, "2s");
      }),
  },
  {
    eventTypes: [...AUTHORIZED, "acceptance.payment_session.capture_pending", "acceptance.payment_session.capture_failed"],
    does: "a payment session whose capture deadline is 10 s away, authorized, then captured 1 s before the deadline: the capture lands after it and fails (capture_expired); the amount stays in escrow until voided",
    run: (f) =>
      withClockHeld(f, async () => {
        const deadline = new Date(Date.parse(await nowIso(f)) + 10_000).toISOString();
        const { id } = await authorizedSession(f, { expiries: { authorizationExpiresAt: deadline, captureExpiresAt: deadline } });
        await advance(f, "7s"); // 1 s before the deadline
        await sessionAction(f, id, "captures", { finalCapture: true });
      }),
  },
  {
    eventTypes: [...CAPTURED, "acceptance.payment_session.refund_pending", "acceptance.payment_session.refund_failed"],
    does: "a payment session paying a project account, captured; the account approves the escrow and asks for a refund from its address, then sends its USDC elsewhere before the refund lands: it fails (insufficient_balance)",
    run: (f) =>
      withClockHeld(f, async () => {
        const merchant = await evmAccountWithGas(f, "base-sepolia");
        const { id, escrow } = await authorizedSession(f, { merchant });
        await sessionAction(f, id, "captures", { finalCapture: true });
        await usdcCall(f, merchant, encodeFunctionData({ abi: erc20Abi, functionName: "approve", args: [escrow, ONE_USDC] }));
        f.say(`${merchant} approved the escrow ${escrow} for 1 USDC`);
        await platform(f, "POST", `${PS}/${id}/refunds`, { source: { address: merchant } });
        f.say("requested a refund from the merchant's address");
        const elsewhere = privateKeyToAccount(generatePrivateKey()).address;
        await usdcCall(f, merchant, encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [elsewhere, ONE_USDC] }));
        f.say(`the merchant sent its 1 USDC to ${elsewhere} before the refund landed`);
        await advance(f, "2s");
      }),
  },
];
