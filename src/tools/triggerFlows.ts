/**
 * The smallest real flow behind each webhook event type the sandbox delivers,
 * for `cdp-sandbox trigger`. Every step is a call of the platform API (as the
 * project's client, or as a browser or wallet where the platform has one pay)
 * or of the admin API (money, the clock), so the domain code that serves any
 * client produces the events: the state, the ledger and the whole sequence of
 * events are what the flow gives, nothing is made up. Transitions that come
 * with time are reached by moving the sandbox clock, as a test would.
 */
import { encodeFunctionData, erc20Abi, keccak256, serializeTransaction, toHex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { ledgerToken } from "../chain/credit.js";
import { type Json, type ProjectKeys, RefusedError, type SandboxClient } from "./client.js";

/** What a flow works with: the sandbox, the project's keys, and what it tells the user along the way. */
interface FlowContext {
  client: SandboxClient;
  keys: ProjectKeys;
  say(line: string): void;
}

export interface Trigger {
  /** The event types the flow produces, in the order it produces them. */
  eventTypes: string[];
  /** What it does, for `trigger --list`. */
  does: string;
  /** `eventType` is the one asked for (the activity flow matches the labels of its subscriptions). */
  run(f: FlowContext, eventType: string): Promise<void>;
}

const platform = (f: FlowContext, method: string, path: string, body?: unknown): Promise<Json> => f.client.platformOk(f.keys, method, path, { body });
const admin = (f: FlowContext, method: string, path: string, body?: unknown): Promise<Json> =>
  f.client.adminOk(method, path, { body, project: f.keys.projectId });

async function anonymous(f: FlowContext, method: string, path: string, body?: unknown): Promise<Json> {
  const answer = await f.client.anonymous(method, path, body);
  if (answer.status >= 300) throw new RefusedError(`${method} /platform${path}`, answer);
  return answer.body;
}

/** Moves the sandbox clock, then makes one request of the project so what became due is noticed (and announced). */
async function advance(f: FlowContext, duration: string): Promise<void> {
  await admin(f, "POST", "/clock", { advance: duration });
  await platform(f, "GET", "/v2/data/webhooks/subscriptions?pageSize=1");
  f.say(`moved the sandbox clock by ${duration}`);
}

const nowIso = async (f: FlowContext): Promise<string> => (await admin(f, "GET", "/clock")).now;

// --- Onramp -----------------------------------------------------------------------------------------------------

/** A headless guest-checkout order (Apple Pay, $20 for USDC on base), by a buyer with this phone number. */
async function onrampOrder(f: FlowContext, phoneNumber: string): Promise<Json> {
  const now = await nowIso(f);
  const destinationAddress = (await platform(f, "POST", "/v2/evm/accounts", {})).address;
  const order = await platform(f, "POST", "/v2/onramp/orders", {
    paymentCurrency: "USD",
    paymentAmount: "20.00",
    purchaseCurrency: "USDC",
    paymentMethod: "GUEST_CHECKOUT_APPLE_PAY",
    destinationAddress,
    destinationNetwork: "base",
    partnerUserRef: "cdp-sandbox-trigger",
    phoneNumber,
    email: "buyer@example.com",
    phoneNumberVerifiedAt: now,
    agreementAcceptedAt: now,
  });
  f.say(`created onramp order ${order.order.orderId} to ${destinationAddress}`);
  return order;
}

/** A US number no earlier trigger used (each buyer has weekly limits). */
const freshPhone = () => `+1415555${String(Math.floor(Math.random() * 10_000)).padStart(4, "0")}`;

// --- Custodial accounts and transfers ----------------------------------------------------------------------------

async function fundedAccount(f: FlowContext, name: string, usdc: string): Promise<string> {
  const accountId = (await platform(f, "POST", "/v2/accounts", { name })).accountId as string;
  if (usdc !== "0") await admin(f, "POST", `/accounts/${accountId}/fund`, { asset: "usdc", amount: usdc });
  return accountId;
}

async function transfer(f: FlowContext, target: Record<string, unknown>, execute: boolean): Promise<Json> {
  const from = await fundedAccount(f, "trigger source", "100");
  const created = await platform(f, "POST", "/v2/transfers", { source: { accountId: from, asset: "usdc" }, target, amount: "10", asset: "usdc", execute });
  f.say(`created transfer ${created.transferId} (${created.status})`);
  return created;
}

/** Moves the clock in growing steps until the transfer leaves `processing` (5 s to 2 h of sandbox time). */
async function untilSettled(f: FlowContext, transferId: string): Promise<void> {
  for (const step of ["5s", "30s", "5m", "30m", "2h"]) {
    await advance(f, step);
    const t = await platform(f, "GET", `/v2/transfers/${transferId}`);
    if (t.status !== "processing") return f.say(`transfer ${transferId} is ${t.status}`);
  }
}

// --- EVM accounts and the ledger ---------------------------------------------------------------------------------

/** A new account of the project on the ledger, with ETH for gas on `network`. */
async function evmAccountWithGas(f: FlowContext, network: string): Promise<`0x${string}`> {
  const address = (await platform(f, "POST", "/v2/evm/accounts", {})).address as `0x${string}`;
  await admin(f, "POST", "/balances", { network, address, amount: "10000000000000000" }); // 0.01 ETH
  return address;
}

const CHAIN_IDS: Record<string, number> = { base: 8453, "base-sepolia": 84532 };
/** The sandbox's network name of an activity subscription's `network` label (base-mainnet when left out). */
const ledgerNetwork = (label: string | undefined) => (label === "base-sepolia" ? "base-sepolia" : "base");

const sendTx = (f: FlowContext, address: string, network: string, tx: Parameters<typeof serializeTransaction>[0]): Promise<Json> =>
  platform(f, "POST", `/v2/evm/accounts/${address}/send/transaction`, { network, transaction: serializeTransaction(tx) });

/**
 * An ERC-20 transfer mined on the ledger that the project's activity subscriptions watch: on the network their labels
 * name, of the token `contract_address` names (USDC otherwise), to `params.to` / `transaction_to` when given. A sender
 * the labels pin (`params.from`, `transaction_from`) cannot be honoured: the flow sends from a new account of the
 * project, whose key the sandbox holds.
 */
async function watchedTransfer(f: FlowContext, eventType: string): Promise<void> {
  const subs = (await admin(f, "GET", "/webhooks/subscriptions")).subscriptions as Array<{
    eventTypes: string[];
    isEnabled: boolean;
    labels?: Record<string, string>;
  }>;
  const labels = subs.find((s) => s.isEnabled && s.eventTypes.includes(eventType))?.labels ?? {};
  const network = ledgerNetwork(labels.network);
  const named = labels.contract_address === undefined ? undefined : ledgerToken(network, labels.contract_address);
  const token = named ?? ledgerToken(network, "USDC")!;
  const contract = (token as { address?: string }).address as `0x${string}`;
  const to = (labels["params.to"] ?? labels.transaction_to ?? privateKeyToAccount(generatePrivateKey()).address) as `0x${string}`;
  const from = await evmAccountWithGas(f, network);
  const units = 10n ** BigInt(token.decimals);
  await admin(f, "POST", "/balances", { network, address: from, token: contract, amount: units.toString() });
  const data = encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [to, units] });
  const sent = await sendTx(f, from, network, { type: "eip1559", chainId: CHAIN_IDS[network]!, to: contract, data });
  f.say(`sent 1 ${token.symbol} from ${from} to ${to} on ${network}: ${sent.transactionHash}`);
  await advance(f, "2s"); // its block, on the sandbox clock
}

// --- Payment sessions --------------------------------------------------------------------------------------------

const PS = "/v2/payment-sessions";
const USDC_BASE_SEPOLIA = "0x036CbD53842c5426634e7929541eC2318f3dCF7e";

async function paymentSession(f: FlowContext): Promise<string> {
  const merchant = privateKeyToAccount(generatePrivateKey()).address;
  const session = await platform(f, "POST", PS, { amount: "1.00", asset: "usdc", target: { address: merchant, network: "base-sepolia" } });
  f.say(`created payment session ${session.paymentSessionId} paying ${merchant}`);
  return session.paymentSessionId;
}

/** A session authorized by a payer's wallet (EIP-3009 typed data signed with viem, as a wallet does), landed. */
async function authorizedSession(f: FlowContext): Promise<string> {
  const id = await paymentSession(f);
  const payer = privateKeyToAccount(generatePrivateKey());
  await admin(f, "POST", "/balances", { network: "base-sepolia", address: payer.address, token: USDC_BASE_SEPOLIA, amount: "1000000" });
  const options = await anonymous(f, "GET", `${PS}/${id}/authorizations/wallet/options?addresses=${payer.address}`);
  const option = options.options[0];
  const payload = option.payloads[0];
  const m = payload.data.message;
  const signature = await payer.signTypedData({
    domain: payload.data.domain,
    types: payload.data.types,
    primaryType: payload.data.primaryType,
    message: { ...m, value: BigInt(m.value), validAfter: BigInt(m.validAfter), validBefore: BigInt(m.validBefore) },
  });
  await anonymous(f, "POST", `${PS}/${id}/authorizations/wallet`, { optionId: option.optionId, signedPayloads: [{ payloadId: payload.payloadId, signature }] });
  f.say(`payer ${payer.address} authorized the session`);
  await advance(f, "2s");
  return id;
}

async function sessionAction(f: FlowContext, id: string, action: "captures" | "voids" | "refunds", body: unknown): Promise<void> {
  await platform(f, "POST", `${PS}/${id}/${action}`, body);
  f.say(`requested a ${action.slice(0, -1)}`);
  await advance(f, "2s");
}

// --- The table ---------------------------------------------------------------------------------------------------

export const TRIGGERS: Trigger[] = [
  {
    eventTypes: ["onramp.transaction.created", "onramp.transaction.updated", "onramp.transaction.success"],
    does: "a headless onramp order ($20 of USDC to a new account on base) walked to COMPLETED by 61 s of sandbox time; its USDC lands on the ledger",
    async run(f) {
      await onrampOrder(f, freshPhone());
      await advance(f, "61s");
    },
  },
  {
    eventTypes: ["onramp.transaction.created", "onramp.transaction.failed"],
    does: "an onramp order by the declining test buyer (+15005550002), FAILED 15 s later; nothing is delivered",
    async run(f) {
      await onrampOrder(f, "+15005550002");
      await advance(f, "16s");
    },
  },
  {
    eventTypes: ["payments.transfers.quoted", "payments.transfers.processing", "payments.transfers.completed"],
    does: "a transfer of 10 USDC between two new custodial accounts, executed at once and settled on the sandbox clock",
    async run(f) {
      const to = await fundedAccount(f, "trigger target", "0");
      const t = await transfer(f, { accountId: to, asset: "usdc" }, true);
      await untilSettled(f, t.transferId);
    },
  },
  {
    eventTypes: ["payments.transfers.quoted", "payments.transfers.processing", "payments.transfers.failed"],
    does: "a transfer of 10 USDC to an email address the platform cannot pay (someone@nowhere.invalid), failing when it settles",
    async run(f) {
      const t = await transfer(f, { email: "someone@nowhere.invalid", asset: "usdc" }, true);
      await untilSettled(f, t.transferId);
    },
  },
  {
    eventTypes: ["payments.transfers.quoted", "payments.transfers.expired"],
    does: "a transfer quote left unexecuted past its expiresAt (15 min of sandbox time)",
    async run(f) {
      const to = await fundedAccount(f, "trigger target", "0");
      await transfer(f, { accountId: to, asset: "usdc" }, false);
      await advance(f, "15m1s");
    },
  },
  {
    eventTypes: ["onchain.activity.detected", "wallet.activity.detected"],
    does: "an ERC-20 transfer mined on the ledger, matching the first enabled subscription's labels (network, contract_address, params.to or transaction_to), sent from a new account of the project",
    run: (f, eventType) => watchedTransfer(f, eventType),
  },
  {
    eventTypes: ["wallet.hash.signed", "wallet.message.signed", "wallet.typed_data.signed", "wallet.transaction.signed"],
    does: "a new EVM account of the project signs a hash, a message, EIP-712 typed data and a transaction (signing only)",
    async run(f) {
      const address = (await platform(f, "POST", "/v2/evm/accounts", {})).address;
      const sign = (what: string, body: unknown) => platform(f, "POST", `/v2/evm/accounts/${address}/${what}`, body);
      await sign("sign", { hash: keccak256(toHex("cdp-sandbox trigger")) });
      await sign("sign/message", { message: "cdp-sandbox trigger" });
      await sign("sign/typed-data", {
        domain: { name: "Trigger", version: "1", chainId: 84532 },
        types: {
          EIP712Domain: [
            { name: "name", type: "string" },
            { name: "version", type: "string" },
            { name: "chainId", type: "uint256" },
          ],
          Note: [{ name: "contents", type: "string" }],
        },
        primaryType: "Note",
        message: { contents: "cdp-sandbox trigger" },
      });
      await sign("sign/transaction", { transaction: serializeTransaction({ type: "eip1559", chainId: 84532, to: address, value: 1n }) });
      f.say(`${address} signed a hash, a message, typed data and a transaction`);
    },
  },
  {
    eventTypes: ["wallet.transaction.created", "wallet.transaction.signed", "wallet.transaction.broadcast", "wallet.transaction.confirmed"],
    does: "a new EVM account, given ETH for gas, sends 1 wei on base-sepolia; the send is mined in the next block",
    async run(f) {
      const address = await evmAccountWithGas(f, "base-sepolia");
      const to = privateKeyToAccount(generatePrivateKey()).address;
      const sent = await sendTx(f, address, "base-sepolia", { type: "eip1559", chainId: 84532, to, value: 1n });
      f.say(`${address} sent 1 wei: ${sent.transactionHash}`);
      await advance(f, "2s");
    },
  },
  {
    eventTypes: ["wallet.transaction.created", "wallet.transaction.signed", "wallet.transaction.broadcast", "wallet.transaction.failed"],
    does: "a new EVM account sends a USDC transfer it cannot cover on base-sepolia: accepted, then reverted onchain",
    async run(f) {
      const address = await evmAccountWithGas(f, "base-sepolia");
      const data = encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [address, 1_000_000n] });
      const sent = await sendTx(f, address, "base-sepolia", { type: "eip1559", chainId: 84532, to: USDC_BASE_SEPOLIA, data });
      f.say(`${address} sent a transfer it cannot cover: ${sent.transactionHash}`);
      await advance(f, "2s");
    },
  },
  {
    eventTypes: ["wallet.delegation.created", "wallet.delegation.revoked"],
    does: "a new end user grants the project a delegation for a day, then the developer revokes it",
    async run(f) {
      const email = `trigger-${Date.now()}@example.com`;
      const user = await platform(f, "POST", "/v2/end-users", { authenticationMethods: [{ type: "email", email }] });
      const expiresAt = new Date(Date.parse(await nowIso(f)) + 86_400_000).toISOString();
      await admin(f, "POST", `/end-users/${encodeURIComponent(user.userId)}/delegation`, { expiresAt });
      f.say(`end user ${user.userId} granted a delegation until ${expiresAt}`);
      await platform(f, "DELETE", `/v2/embedded-wallet-api/end-users/${encodeURIComponent(user.userId)}/delegation`, {});
      f.say("the developer revoked it");
    },
  },
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
    eventTypes: [
      "acceptance.payment_session.created",
      "acceptance.payment_session.authorization_pending",
      "acceptance.payment_session.authorization_succeeded",
      "acceptance.payment_session.capture_pending",
      "acceptance.payment_session.capture_succeeded",
    ],
    does: "a payment session paid from a payer's wallet (a signed EIP-3009 authorization), then captured in full; each action lands 2 s later",
    async run(f) {
      const id = await authorizedSession(f);
      await sessionAction(f, id, "captures", { finalCapture: true });
    },
  },
  {
    eventTypes: [
      "acceptance.payment_session.created",
      "acceptance.payment_session.authorization_pending",
      "acceptance.payment_session.authorization_succeeded",
      "acceptance.payment_session.void_pending",
      "acceptance.payment_session.void_succeeded",
    ],
    does: "a payment session authorized from a payer's wallet, then voided: the escrow returns the amount",
    async run(f) {
      const id = await authorizedSession(f);
      await sessionAction(f, id, "voids", {});
    },
  },
  {
    eventTypes: [
      "acceptance.payment_session.created",
      "acceptance.payment_session.authorization_pending",
      "acceptance.payment_session.authorization_succeeded",
      "acceptance.payment_session.capture_pending",
      "acceptance.payment_session.capture_succeeded",
      "acceptance.payment_session.refund_pending",
      "acceptance.payment_session.refund_succeeded",
    ],
    does: "a payment session authorized, captured, then refunded from a funded custodial account",
    async run(f) {
      const id = await authorizedSession(f);
      await sessionAction(f, id, "captures", { finalCapture: true });
      const accountId = await fundedAccount(f, "trigger refunds", "10");
      await sessionAction(f, id, "refunds", { source: { accountId, asset: "usdc" } });
    },
  },
  {
    eventTypes: ["acceptance.disbursement.pending", "acceptance.disbursement.succeeded"],
    does: "a disbursement of 1 USDC from a funded custodial account to an address on base, landing 30 s later",
    async run(f) {
      const accountId = await fundedAccount(f, "trigger disbursements", "10");
      const address = privateKeyToAccount(generatePrivateKey()).address;
      const d = await platform(f, "POST", "/v2/disbursements", {
        source: { accountId, asset: "usdc" },
        target: { address, network: "base" },
        amount: "1",
        asset: "usdc",
      });
      f.say(`created disbursement ${d.disbursementId} to ${address}`);
      await advance(f, "31s");
    },
  },
  {
    eventTypes: ["acceptance.disbursement.pending", "acceptance.disbursement.failed"],
    does: "a disbursement of 1 USDC from an empty custodial account: accepted, then failed (insufficient_funds) when it lands",
    async run(f) {
      const accountId = await fundedAccount(f, "trigger empty", "0");
      const address = privateKeyToAccount(generatePrivateKey()).address;
      const d = await platform(f, "POST", "/v2/disbursements", {
        source: { accountId, asset: "usdc" },
        target: { address, network: "base" },
        amount: "1",
        asset: "usdc",
      });
      f.say(`created disbursement ${d.disbursementId} from an empty account`);
      await advance(f, "31s");
    },
  },
  {
    eventTypes: ["customers.capability.changed", "customers.customer.deleted"],
    does: "a customer created asking for transferStablecoin, then deleted",
    async run(f) {
      const c = await platform(f, "POST", "/v2/customers", {
        type: "individual",
        individual: { firstName: "Ada" },
        capabilities: { transferStablecoin: { requested: true } },
      });
      f.say(`created customer ${c.customerId}`);
      await platform(f, "DELETE", `/v2/customers/${c.customerId}`);
      f.say("deleted it");
    },
  },
];

/** The flow of an event type: the first flow that produces it (the shortest, by the table's order). */
export const triggerFor = (eventType: string): Trigger | undefined => TRIGGERS.find((t) => t.eventTypes.includes(eventType));
