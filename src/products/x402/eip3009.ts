/**
 * The `exact` scheme on EVM: an EIP-3009 `transferWithAuthorization` signed
 * by the payer over the token's own EIP-712 domain, checked the way the token
 * contract would execute it (signature — ECDSA, or a smart wallet's ERC-1271,
 * ERC-6492 before it is deployed —, recipient, validity window on the
 * sandbox clock, amount, unused nonce, balance on the ledger), then executed
 * by the facilitator's transaction with the token's Transfer and
 * AuthorizationUsed logs.
 */
import { encodeEventTopics, encodeFunctionData, getAddress, isAddress, parseAbi, hashTypedData, parseSignature, size, type Hex } from "viem";
import { chainIdOf, evmTokenByAddress, GAS_PRICE_WEI, type LedgerLog, type LedgerTx, ledgerTxs, moveToken, takeNonce } from "../../chain/evm/index.js";
import { balanceOf, settlementBlock } from "../../chain/index.js";
import type { Clock } from "../../clock.js";
import type { ProjectTx } from "../../store/store.js";
import { checkEvmSignature, prepareSignatureForSettlement, signatureChain } from "../../wallet/evm-smart-accounts/evmSignatures.js";
import type { HandlerContext } from "../../wallet/types.js";
import { authorizationKey, usedAuthorizations } from "./model.js";
import { FACILITATOR_EVM_ADDRESS } from "./networks.js";
import type { Payment, Rejection } from "./payment.js";

/** validBefore must leave this much time for the settlement to land, as facilitators require. */
const VALID_BEFORE_MARGIN_SECONDS = 6;

/** The EIP-712 types of an EIP-3009 transfer authorization (USDC's, EURC's): what the payer signs. */
export const AUTHORIZATION_TYPES = {
  TransferWithAuthorization: [
    { name: "from", type: "address" },
    { name: "to", type: "address" },
    { name: "value", type: "uint256" },
    { name: "validAfter", type: "uint256" },
    { name: "validBefore", type: "uint256" },
    { name: "nonce", type: "bytes32" },
  ],
} as const;

const eip3009Abi = parseAbi([
  "function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, uint8 v, bytes32 r, bytes32 s)",
  // FiatToken v2.2's overload for signatures of any length: a smart wallet's ERC-1271 signature.
  "function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, bytes signature)",
  "event Transfer(address indexed from, address indexed to, uint256 value)",
  "event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)",
]);

export interface EvmAuthorization {
  from: `0x${string}`;
  to: `0x${string}`;
  value: bigint;
  validAfter: bigint;
  validBefore: bigint;
  nonce: Hex;
}

export interface EvmPlan {
  payer: `0x${string}`;
  token: `0x${string}`;
  authorization: EvmAuthorization;
  /** The payer's signature as signed: ECDSA, ERC-1271, or ERC-6492-wrapped. */
  signature: Hex;
}

/** The token's EIP-712 domain, from the token table, when the token takes EIP-3009 authorizations. */
export function eip3009Domain(network: string, asset: string) {
  const token = evmTokenByAddress(network, asset);
  return token?.eip712 ? { token, ...token.eip712 } : undefined;
}

const uint = (v: unknown): bigint | undefined => (typeof v === "string" && /^(0x[0-9a-fA-F]+|[0-9]+)$/.test(v) ? BigInt(v) : undefined);

/** Checks an exact EVM payment against its requirements, on the ledger and the sandbox clock. */
export async function verifyExactEvm(ctx: HandlerContext, p: Payment): Promise<{ plan: EvmPlan } | { rejection: Rejection }> {
  const auth = (p.payload.authorization ?? {}) as Record<string, unknown>;
  const signature = p.payload.signature as Hex | undefined;
  const no = (reason: Rejection["reason"], message: string, payer?: string) => ({ rejection: { reason, message, payer } });
  if (p.payload.permit2Authorization !== undefined) {
    return no(
      "unsupported_payload_type",
      "The sandbox settles exact EVM payments by EIP-3009 transferWithAuthorization only; Permit2 payloads are not simulated.",
    );
  }
  if (typeof signature !== "string" || typeof auth.from !== "string" || p.payload.transaction !== undefined) {
    return no("invalid_payload", `An exact payment on ${p.networkName} carries {signature, authorization}; this payload does not.`);
  }
  const payer = getAddress(auth.from);
  const ledger = p.network.ledger;
  const domain = eip3009Domain(ledger, p.asset);
  if (!domain) {
    return no(
      "invalid_exact_evm_eip3009_not_supported",
      `${p.asset} is not an EIP-3009 token on ${ledger} in the sandbox's token table (USDC and EURC are).`,
      payer,
    );
  }
  if (typeof p.extra.name === "string" && p.extra.name !== domain.name) {
    return no("invalid_exact_evm_token_name_mismatch", `extra.name is "${p.extra.name}" but the token's EIP-712 name is "${domain.name}".`, payer);
  }
  if (typeof p.extra.version === "string" && p.extra.version !== domain.version) {
    return no(
      "invalid_exact_evm_token_version_mismatch",
      `extra.version is "${p.extra.version}" but the token's EIP-712 version is "${domain.version}".`,
      payer,
    );
  }
  const [value, validAfter, validBefore] = [uint(auth.value), uint(auth.validAfter), uint(auth.validBefore)];
  if (value === undefined || validAfter === undefined || validBefore === undefined || !isAddress(String(auth.to), { strict: false })) {
    return no(
      "invalid_payload",
      "authorization.value, validAfter and validBefore must be unsigned integers (decimal or 0x hex) and authorization.to an address.",
      payer,
    );
  }
  const authorization: EvmAuthorization = { from: payer, to: getAddress(String(auth.to)), value, validAfter, validBefore, nonce: String(auth.nonce) as Hex };
  const chain = signatureChain(ctx, ledger);
  const hash = hashTypedData({
    domain: { name: domain.name, version: domain.version, chainId: chain.chainId, verifyingContract: domain.token.address },
    types: AUTHORIZATION_TYPES,
    primaryType: "TransferWithAuthorization",
    message: authorization,
  });
  // The token checks the payer's signature as SignatureChecker does: ECDSA, or the payer's ERC-1271 (ERC-6492 before deployment).
  const signed = /^0x[0-9a-fA-F]*$/.test(signature)
    ? await checkEvmSignature(chain, payer, hash, signature)
    : ({ valid: false, reason: "the signature is not hex" } as const);
  if (!signed.valid) {
    return no(
      "invalid_exact_evm_payload_signature",
      `The TransferWithAuthorization signature over ${domain.token.symbol}'s domain on ${ledger} is not ${payer}'s: ${signed.reason}.`,
      payer,
    );
  }
  if (authorization.to.toLowerCase() !== p.payTo.toLowerCase()) {
    return no("invalid_exact_evm_payload_recipient_mismatch", `The authorization pays ${authorization.to} but the requirements' payTo is ${p.payTo}.`, payer);
  }
  const now = BigInt(Math.floor(ctx.clock.now() / 1000));
  if (validBefore < now + BigInt(VALID_BEFORE_MARGIN_SECONDS)) {
    return no(
      "invalid_exact_evm_payload_authorization_valid_before",
      `validBefore ${validBefore} is not at least ${VALID_BEFORE_MARGIN_SECONDS} s after the sandbox's now (${now}): the authorization has expired.`,
      payer,
    );
  }
  if (validAfter > now) {
    return no(
      "invalid_exact_evm_payload_authorization_valid_after",
      `validAfter ${validAfter} is after the sandbox's now (${now}): the authorization is not valid yet.`,
      payer,
    );
  }
  if (value !== p.amount) {
    const reason = p.x402Version === 1 ? "invalid_exact_evm_payload_authorization_value" : "invalid_exact_evm_payload_authorization_value_mismatch";
    return no(reason, `The authorization's value is ${value} but the exact scheme needs exactly ${p.amount}.`, payer);
  }
  const used = usedAuthorizations(ctx.store).get(authorizationKey(ledger, domain.token.address, payer, authorization.nonce));
  if (used)
    return no("invalid_exact_evm_nonce_already_used", `Nonce ${authorization.nonce} of ${payer} was already used by transaction ${used.transaction}.`, payer);
  const held = balanceOf(ctx.store, ledger, domain.token.address, payer);
  if (held < value)
    return no("insufficient_funds", `${payer} holds ${held} of ${domain.token.symbol} (smallest unit) on ${ledger}; the payment needs ${value}.`, payer);
  return { plan: { payer, token: domain.token.address, authorization, signature } };
}

const topicsOf = (name: "Transfer" | "AuthorizationUsed", args: Record<string, unknown>) =>
  encodeEventTopics({ abi: eip3009Abi, eventName: name, args } as never) as Hex[];

/** The token call's data: the (v, r, s) form for a 65-byte ECDSA signature, the `bytes` form for any other. */
function transferWithAuthorizationInput(a: EvmAuthorization, signature: Hex): Hex {
  const base = [a.from, a.to, a.value, a.validAfter, a.validBefore, a.nonce] as const;
  if (size(signature) !== 65) return encodeFunctionData({ abi: eip3009Abi, functionName: "transferWithAuthorization", args: [...base, signature] });
  const { v, r, s, yParity } = parseSignature(signature);
  return encodeFunctionData({ abi: eip3009Abi, functionName: "transferWithAuthorization", args: [...base, Number(v ?? BigInt(27 + (yParity ?? 0))), r, s] });
}

/**
 * An executed transferWithAuthorization on the ledger: `sender` (whoever submits it: the facilitator, the payment
 * escrow's operator) calls the token, the token moves from the authorizer, the transaction is mined in `block` with
 * the token's AuthorizationUsed and Transfer logs, and the authorization's nonce is used from then on. The caller
 * has checked the signature, the window and the balance.
 */
export function executeTransferWithAuthorization(
  store: ProjectTx,
  o: {
    network: string;
    token: `0x${string}`;
    authorization: EvmAuthorization;
    signature: Hex;
    sender: `0x${string}`;
    hash: Hex;
    block: number;
    atMs: number;
    clock: Clock;
  },
): LedgerTx {
  const { authorization: a, token, network } = o;
  // A 6492-signing wallet is deployed by the submitter first; the token then asks it with the inner signature.
  const signature = prepareSignatureForSettlement(store, o.clock, network, a.from, o.signature);
  const input = transferWithAuthorizationInput(a, signature);
  // FiatToken emits AuthorizationUsed before the Transfer of the move.
  const logs: LedgerLog[] = [{ address: token, topics: topicsOf("AuthorizationUsed", { authorizer: a.from, nonce: a.nonce }), data: "0x", logIndex: 0 }];
  moveToken(store, network, token, a.from, a.to, a.value, logs);
  const record: LedgerTx = {
    hash: o.hash,
    network,
    chainId: chainIdOf(network)!,
    from: o.sender,
    to: token,
    value: "0",
    input,
    nonce: takeNonce(store, network, o.sender),
    gas: "100000",
    gasUsed: "62000",
    gasPrice: GAS_PRICE_WEI.toString(),
    type: "eip1559",
    block: o.block,
    status: "success",
    logs,
    submittedAtMs: o.atMs,
  };
  ledgerTxs(store).put(o.hash, record);
  const key = authorizationKey(network, token, a.from, a.nonce);
  usedAuthorizations(store).put(key, { id: key, network, transaction: o.hash, usedAtMs: o.atMs });
  return record;
}

/**
 * Executes a verified authorization: the facilitator's transaction calls
 * transferWithAuthorization, the token moves, the nonce is used. The
 * platform answers settle once the transaction is mined, so it is recorded
 * in the current block.
 */
export function settleExactEvm(ctx: HandlerContext, ledger: string, plan: EvmPlan): LedgerTx {
  return executeTransferWithAuthorization(ctx.store, {
    network: ledger,
    token: plan.token,
    authorization: plan.authorization,
    signature: plan.signature,
    sender: FACILITATOR_EVM_ADDRESS,
    hash: `0x${ctx.random.hex(32)}`,
    block: settlementBlock(ctx.store, ctx.clock, ledger),
    atMs: ctx.clock.now(),
    clock: ctx.clock,
  });
}
