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
import type { Json } from "./client.js";
import { PAYMENT_SESSION_TRIGGERS } from "./triggerPaymentSessions.js";
import {
  admin,
  advance,
  evmAccountWithGas,
  type FlowContext,
  fundedAccount,
  nowIso,
  platform,
  sendTx,
  type Trigger,
  USDC_BASE_SEPOLIA,
} from "./triggerSteps.js";

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

/**
 * A crypto deposit of 3,000 USDC (the travel rule's threshold) arriving at a new deposit destination of a new custodial
 * account on base: held `processing`, its originator's details asked for. Answers the held transfer's id.
 */
async function heldDeposit(f: FlowContext): Promise<string> {
  const accountId = await fundedAccount(f, "trigger deposits", "0");
  const dest = await platform(f, "POST", "/v2/deposit-destinations", { accountId, type: "crypto", crypto: { network: "base" } });
  const held = await admin(f, "POST", `/deposit-destinations/${dest.depositDestinationId}/deposit`, { amount: "3000" });
  f.say(`3000 USDC arrived at ${dest.crypto.address}: transfer ${held.transferId} is ${held.status}, waiting for travel-rule details`);
  return held.transferId;
}

// --- EVM accounts and the ledger ---------------------------------------------------------------------------------

const CHAIN_IDS: Record<string, number> = { base: 8453, "base-sepolia": 84532 };
/** The sandbox's network name of an activity subscription's `network` label (base-mainnet when left out). */
const ledgerNetwork = (label: string | undefined) => (label === "base-sepolia" ? "base-sepolia" : "base");

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
    eventTypes: ["payments.transfers.processing", "payments.transfers.travel_rule_incomplete"],
    does: "a deposit of 3,000 USDC to a new deposit destination on base (simulated arrival), held for its originator's travel-rule details",
    run: (f) => heldDeposit(f).then(() => undefined),
  },
  {
    eventTypes: [
      "payments.transfers.processing",
      "payments.transfers.travel_rule_incomplete",
      "payments.transfers.travel_rule_completed",
      "payments.transfers.completed",
    ],
    does: "the held deposit of 3,000 USDC, then its travel-rule details submitted (a self-transfer from a self-custody wallet): the account is credited",
    async run(f) {
      const transferId = await heldDeposit(f);
      const answer = await platform(f, "POST", `/v2/transfers/${transferId}/travel-rule`, { isSelf: true, originator: { walletType: "self_custody" } });
      f.say(`submitted the travel-rule details: ${answer.status}`);
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
  ...PAYMENT_SESSION_TRIGGERS,
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
