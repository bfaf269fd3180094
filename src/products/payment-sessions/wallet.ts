/**
 * Paying a session from a wallet: getWalletAuthorizationOptions and
 * authorizeWalletPaymentSession. An option is an EIP-3009
 * TransferWithAuthorization of the session's amount from the payer to the
 * sandbox's payment escrow, on the session's network, valid until the
 * authorization deadline, with a fresh nonce. The payer signs its typed data
 * (eth_signTypedData_v4) and sends the signature back; the sandbox recovers
 * the signer with viem and accepts only the option's own payer. The signed
 * transfer executes when the authorization lands (settle.ts).
 *
 * Options are remembered (one record each, never shown) so that the signed
 * payload can be checked against exactly what was offered; reading them
 * changes nothing about the session. Only the session's own network and asset
 * are offered: the sandbox does not bridge or swap.
 */
import { getAddress, hashTypedData, isAddress, toHex, type Hex } from "viem";
import { chainIdOf, evmTokenByAddress } from "../../chain/evm/index.js";
import { balanceOf } from "../../chain/index.js";
import type { Schema } from "../../contract/types.js";
import { apiError } from "../../errors/catalogue.js";
import { declareCollection } from "../../store/collections.js";
import type { ProjectTx } from "../../store/store.js";
import { custodialAsset } from "../shared/custodialAssets.js";
import { checkEvmSignature, signatureChain } from "../../wallet/evm-smart-accounts/evmSignatures.js";
import { fromUnits } from "../shared/decimal.js";
import type { Handler, HandlerContext } from "../../wallet/types.js";
import { AUTHORIZATION_TYPES } from "../x402/eip3009.js";
import { actionHash, PAYMENT_ESCROW } from "./escrow.js";
import { emitSessionEvent } from "./events.js";
import {
  ACTION_DELAY_MS,
  actionLabels,
  authorizationView,
  findPaymentSession,
  paymentSessions,
  queueAction,
  requireIdle,
  type AuthorizationRecord,
  type Eip3009Transfer,
  type PaymentSessionRecord,
  type WalletAuthorizationRecord,
} from "./model.js";

interface WalletOptionRecord {
  optionId: string;
  paymentSessionId: string;
  payloadId: string;
  network: string;
  transfer: Omit<Eip3009Transfer, "signature">;
}

const WALLET_OPTIONS = declareCollection<WalletOptionRecord>("paymentSessionWalletOptions");
const walletOptions = (store: ProjectTx) => store.collection(WALLET_OPTIONS);

const DOMAIN_TYPES = [
  { name: "name", type: "string" },
  { name: "version", type: "string" },
  { name: "chainId", type: "uint256" },
  { name: "verifyingContract", type: "address" },
];

function domainOf(network: string, token: `0x${string}`) {
  const t = evmTokenByAddress(network, token)!;
  return { name: t.eip712!.name, version: t.eip712!.version, chainId: chainIdOf(network)!, verifyingContract: t.address };
}

/** Refuses to authorize a session that is not waiting for its authorization: canceled, busy, authorized already, past its deadline. */
export function requireAwaitingAuthorization(s: PaymentSessionRecord, nowMs: number): void {
  requireIdle(s, "be authorized");
  if (s.status === "authorization_failed") {
    throw apiError("invalid_request", `Payment session ${s.paymentSessionId}'s authorization failed; it cannot be authorized again. Create a new session.`);
  }
  if (s.status !== "created")
    throw apiError("payment_session_already_authorized", `Payment session ${s.paymentSessionId} is already authorized (${s.status}).`);
  if (nowMs > Date.parse(s.expiries.authorizationExpiresAt)) {
    throw apiError(
      "authorization_expired",
      `Payment session ${s.paymentSessionId} could be authorized until ${s.expiries.authorizationExpiresAt}; create a new session.`,
    );
  }
}

/** As requireAwaitingAuthorization, and refuses a session paid to a custodial account (which only a Coinbase account pays). */
export function requireAuthorizable(s: PaymentSessionRecord, nowMs: number, how: string): { network: string; token: `0x${string}` } {
  requireAwaitingAuthorization(s, nowMs);
  if (!s.network || !s.token) {
    throw apiError(
      "invalid_request",
      `Payment session ${s.paymentSessionId} pays a custodial account, which takes a Coinbase account authorization, not ${how}.`,
    );
  }
  return { network: s.network, token: s.token };
}

/** Starts the authorization: the session waits for it to land. */
export function startAuthorization(ctx: HandlerContext, s: PaymentSessionRecord, a: AuthorizationRecord): Schema<"Authorization"> {
  const next: PaymentSessionRecord = {
    ...s,
    status: "authorization_pending",
    authorizations: [...s.authorizations, a],
    pending: queueAction(ctx.store, "authorization", a.id, a.landsAtMs),
    updatedAt: a.createdAt,
  };
  paymentSessions(ctx.store).put(s.paymentSessionId, next);
  emitSessionEvent(ctx, next, ctx.clock.now(), { kind: "authorization", id: a.id });
  return authorizationView(next, a);
}

/** A new pending authorization of `transfer`; its transaction hash is fixed now. */
export function newAuthorization(
  ctx: HandlerContext,
  kind: WalletAuthorizationRecord["kind"],
  s: PaymentSessionRecord,
  transfer: Eip3009Transfer,
  extra: Partial<WalletAuthorizationRecord> = {},
): WalletAuthorizationRecord {
  const id = `authorization_${ctx.random.uuid()}`;
  const nowMs = ctx.clock.now();
  const iso = new Date(nowMs).toISOString();
  return {
    id,
    kind,
    status: "pending",
    units: s.units,
    source: { address: transfer.from, network: s.network as "base", asset: s.asset },
    transfer,
    hash: actionHash(id),
    createdAt: iso,
    updatedAt: iso,
    landsAtMs: nowMs + ACTION_DELAY_MS,
    ...extra,
  };
}

function addressesOf(raw: string | string[] | undefined): string[] {
  const list = [raw ?? []].flat().flatMap((v) => v.split(","));
  if (list.length === 0 || list.some((a) => a === "")) throw apiError("invalid_request", "addresses must list 1 to 5 payer addresses, comma-separated.");
  if (list.length > 5) throw apiError("invalid_request", `addresses lists ${list.length} addresses; at most 5 are allowed.`);
  const lower = list.map((a) => a.toLowerCase());
  if (new Set(lower).size !== lower.length) throw apiError("invalid_request", "addresses lists the same address twice; each address once.");
  const bad = list.find((a) => !isAddress(a, { strict: false }));
  if (bad) throw apiError("invalid_request", `${bad} is not an EVM address; wallet payments come from EVM addresses.`);
  return list.map((a) => getAddress(a));
}

export const getWalletAuthorizationOptions: Handler<"getWalletAuthorizationOptions"> = (req, ctx) => {
  const s = findPaymentSession(ctx.store, req.pathParams.paymentSessionId);
  const nowMs = ctx.clock.now();
  const { network, token } = requireAuthorizable(s, nowMs, "a wallet payment");
  const addresses = addressesOf(req.query.addresses as string | string[] | undefined);
  const offered = (!req.query.network || req.query.network === network) && (!req.query.asset || String(req.query.asset).toLowerCase() === s.asset);
  const units = BigInt(s.units);
  const asset = custodialAsset(s.asset)!;
  const validBefore = String(Math.ceil(Date.parse(s.expiries.authorizationExpiresAt) / 1000));
  const options: Schema<"WalletAuthorizationOption">[] = [];
  const ineligibleAddresses: Schema<"IneligibleWalletAuthorizationAddress">[] = [];
  for (const address of addresses) {
    const held = balanceOf(ctx.store, network, token, address);
    if (!offered || held < units) {
      const fundsRequired = offered
        ? [{ asset: s.asset, network: network as "base", currentBalance: fromUnits(held, asset), requiredBalance: fromUnits(units, asset) }]
        : [];
      ineligibleAddresses.push({
        address,
        code: "insufficient_funds",
        message: `The address does not hold ${fromUnits(units, asset)} ${s.asset} on ${network}.`,
        fundsRequired,
      });
      continue;
    }
    if (options.length > 0) {
      ineligibleAddresses.push({
        address,
        code: "superseded_by_preferred_option",
        message: "Another requested address, listed earlier, can pay in the same asset.",
      });
      continue;
    }
    const option: WalletOptionRecord = {
      optionId: `opt_${ctx.random.uuid()}`,
      paymentSessionId: s.paymentSessionId,
      payloadId: `payload_${ctx.random.uuid()}`,
      network,
      transfer: { token, from: address as `0x${string}`, to: PAYMENT_ESCROW, value: s.units, validAfter: "0", validBefore, nonce: toHex(ctx.random.bytes(32)) },
    };
    walletOptions(ctx.store).insert(option.optionId, option);
    const { token: _token, ...message } = option.transfer;
    options.push({
      optionId: option.optionId,
      source: { address, network: network as "base", asset: s.asset },
      amount: fromUnits(units, asset),
      asset: s.asset,
      network: network as "base",
      payloads: [
        {
          payloadId: option.payloadId,
          type: "eip3009",
          // The contract types `types` and `message` as open objects; these are the typed data the payer signs.
          data: {
            types: { EIP712Domain: DOMAIN_TYPES, ...AUTHORIZATION_TYPES },
            primaryType: "TransferWithAuthorization",
            domain: domainOf(network, token),
            message,
          } as unknown as Schema<"EIP712Message">,
        },
      ],
    });
  }
  return { status: 200, body: { options, ineligibleAddresses } };
};

export const authorizeWalletPaymentSession: Handler<"authorizeWalletPaymentSession"> = async (req, ctx) => {
  const s = findPaymentSession(ctx.store, req.pathParams.paymentSessionId);
  const { network, token } = requireAuthorizable(s, ctx.clock.now(), "a wallet payment");
  const option = walletOptions(ctx.store).get(req.body.optionId);
  if (!option || option.paymentSessionId !== s.paymentSessionId) {
    throw apiError(
      "invalid_request",
      `optionId ${req.body.optionId} is not an option of payment session ${s.paymentSessionId}; get its wallet authorization options first.`,
    );
  }
  const signed = req.body.signedPayloads.find((p) => p.payloadId === option.payloadId);
  const others = req.body.signedPayloads.filter((p) => p.payloadId !== option.payloadId);
  if (!signed?.signature || others.length > 0) {
    throw apiError("invalid_request", `signedPayloads must hold exactly the option's payload ${option.payloadId} with its signature.`);
  }
  const t = option.transfer;
  const signature = signed.signature as Hex;
  const hash = hashTypedData({
    domain: domainOf(network, token),
    types: AUTHORIZATION_TYPES,
    primaryType: "TransferWithAuthorization",
    message: { ...t, value: BigInt(t.value), validAfter: BigInt(t.validAfter), validBefore: BigInt(t.validBefore) },
  });
  // The payer's wallet may be a smart wallet: the token checks ERC-1271 (ERC-6492 before deployment) as it checks ECDSA.
  const check = /^0x[0-9a-fA-F]*$/.test(signature)
    ? await checkEvmSignature(signatureChain(ctx, network), t.from, hash, signature)
    : ({ valid: false, reason: "the signature is not hex" } as const);
  if (!check.valid) {
    throw apiError(
      "invalid_signature",
      `The signature of payload ${option.payloadId} is not the option's payer ${t.from}'s (${check.reason}); the payer signs the payload's typed data.`,
    );
  }
  const a = newAuthorization(
    ctx,
    "wallet",
    s,
    { ...t, signature: signed.signature as Hex },
    {
      ...(req.body.metadata ? { metadata: req.body.metadata } : {}),
      ...actionLabels(s, req.body),
    },
  );
  return { status: 200, body: startAuthorization(ctx, s, a) };
};
