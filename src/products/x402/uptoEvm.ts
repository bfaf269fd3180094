/**
 * The `upto` scheme on EVM: the payer signs a Permit2 PermitWitnessTransferFrom
 * for the maximum, naming the x402 upto proxy as spender and binding the
 * recipient and this facilitator in the witness. Verify checks it against the
 * requirements (amount = the maximum); settle charges the amount the resource
 * server asks (at most the maximum) through the proxy's `settle`: Permit2 pulls
 * that much from the payer (the payer has approved Permit2 on the token), the
 * nonce is used for ever. A zero charge moves nothing and sends no transaction.
 */
import {
  encodeAbiParameters,
  encodeEventTopics,
  encodeFunctionData,
  getAddress,
  isAddress,
  maxUint256,
  parseAbi,
  hashTypedData,
  parseSignature,
  type Hex,
} from "viem";
import {
  allowanceOf,
  chainIdOf,
  evmTokenByAddress,
  GAS_PRICE_WEI,
  type LedgerTx,
  ledgerTxs,
  PERMIT2_ADDRESS,
  setAllowance,
  takeNonce,
} from "../../chain/evm/index.js";
import { balanceOf, credit, setBalance, settlementBlock } from "../../chain/index.js";
import { checkEvmSignature, prepareSignatureForSettlement, signatureChain } from "../../wallet/evm-smart-accounts/evmSignatures.js";
import type { HandlerContext } from "../../wallet/types.js";
import { applyEip2612Permit, eip2612PermitProblem, readEip2612Permit, type Eip2612Permit } from "./eip2612.js";
import { authorizationKey, usedAuthorizations } from "./model.js";
import { FACILITATOR_EVM_ADDRESS } from "./networks.js";
import type { Payment, Rejection } from "./payment.js";

/** The x402 upto Permit2 proxy: the spender every upto authorization names, the same address on every network. */
const UPTO_PERMIT2_PROXY = "0x4020A4f3b7b90ccA423B9fabCc0CE57C6C240002" as const;

/** The deadline must leave this much time for the settlement to land, as facilitators require. */
const DEADLINE_MARGIN_SECONDS = 6n;

const UPTO_WITNESS_TYPES = {
  PermitWitnessTransferFrom: [
    { name: "permitted", type: "TokenPermissions" },
    { name: "spender", type: "address" },
    { name: "nonce", type: "uint256" },
    { name: "deadline", type: "uint256" },
    { name: "witness", type: "Witness" },
  ],
  TokenPermissions: [
    { name: "token", type: "address" },
    { name: "amount", type: "uint256" },
  ],
  Witness: [
    { name: "to", type: "address" },
    { name: "facilitator", type: "address" },
    { name: "validAfter", type: "uint256" },
  ],
} as const;

const proxyAbi = parseAbi([
  "struct TokenPermissions { address token; uint256 amount; }",
  "struct PermitTransferFrom { TokenPermissions permitted; uint256 nonce; uint256 deadline; }",
  "struct Witness { address to; address facilitator; uint256 validAfter; }",
  "struct Permit2612 { uint256 value; uint256 deadline; bytes32 r; bytes32 s; uint8 v; }",
  "function settle(PermitTransferFrom permit, uint256 amount, address owner, Witness witness, bytes signature)",
  "function settleWithPermit(Permit2612 permit2612, PermitTransferFrom permit, uint256 amount, address owner, Witness witness, bytes signature)",
  "event Transfer(address indexed from, address indexed to, uint256 value)",
  "event Approval(address indexed owner, address indexed spender, uint256 value)",
]);

interface UptoAuthorization {
  from: `0x${string}`;
  token: `0x${string}`;
  /** The signed maximum. */
  maxAmount: bigint;
  spender: `0x${string}`;
  nonce: bigint;
  deadline: bigint;
  to: `0x${string}`;
  facilitator: `0x${string}`;
  validAfter: bigint;
}

export interface UptoEvmPlan {
  payer: `0x${string}`;
  authorization: UptoAuthorization;
  signature: Hex;
  /** What the settlement moves: the requirements' amount. */
  charge: bigint;
  /** The EIP-2612 permit submitted with the settlement, when the payment carries one that goes through. */
  permit?: Eip2612Permit;
}

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v && typeof v === "object" && !Array.isArray(v) ? (v as Obj) : {});
const uint = (v: unknown): bigint | undefined => (typeof v === "string" && /^(0x[0-9a-fA-F]+|[0-9]+)$/.test(v) ? BigInt(v) : undefined);
const addr = (v: unknown): `0x${string}` | undefined => (typeof v === "string" && isAddress(v, { strict: false }) ? getAddress(v) : undefined);

/** Reads the payload's Permit2 authorization, or says which field is missing. */
function readAuthorization(payload: Obj): UptoAuthorization | undefined {
  const a = obj(payload.permit2Authorization);
  const permitted = obj(a.permitted);
  const witness = obj(a.witness);
  const fields = {
    from: addr(a.from),
    token: addr(permitted.token),
    maxAmount: uint(permitted.amount),
    spender: addr(a.spender),
    nonce: uint(a.nonce),
    deadline: uint(a.deadline),
    to: addr(witness.to),
    facilitator: addr(witness.facilitator),
    validAfter: uint(witness.validAfter),
  };
  return Object.values(fields).every((v) => v !== undefined) ? (fields as UptoAuthorization) : undefined;
}

/**
 * Checks an upto EVM payment in the order facilitators do, on the ledger and the sandbox clock. On verify the
 * requirements' amount is the maximum and must be the signed one; on settle it is the charge, at most that.
 */
export async function verifyUptoEvm(ctx: HandlerContext, p: Payment, phase: "verify" | "settle"): Promise<{ plan: UptoEvmPlan } | { rejection: Rejection }> {
  const no = (reason: Rejection["reason"], message: string, payer?: string) => ({ rejection: { reason, message, payer } });
  const signature = p.payload.signature;
  if (p.payload.permit2Authorization === undefined || typeof signature !== "string") {
    return no(
      "unsupported_payload_type",
      `An upto payment on ${p.networkName} is a Permit2 authorization {signature, permit2Authorization}; this payload is not.`,
    );
  }
  const a = readAuthorization(p.payload);
  if (!a) {
    return no(
      "invalid_payload",
      "permit2Authorization needs from, permitted.token, spender, witness.to and witness.facilitator as addresses, and permitted.amount, nonce, deadline and witness.validAfter as unsigned integers.",
    );
  }
  const payer = a.from;
  const ledger = p.network.ledger;
  if (a.spender !== getAddress(UPTO_PERMIT2_PROXY)) {
    return no("invalid_permit2_spender", `The permit's spender is ${a.spender}; upto payments name the x402 upto proxy ${UPTO_PERMIT2_PROXY}.`, payer);
  }
  if (a.to.toLowerCase() !== p.payTo.toLowerCase()) {
    return no("invalid_permit2_recipient_mismatch", `The witness pays ${a.to} but the requirements' payTo is ${p.payTo}.`, payer);
  }
  if (a.facilitator !== FACILITATOR_EVM_ADDRESS) {
    return no(
      "upto_facilitator_mismatch",
      `The witness binds facilitator ${a.facilitator}; this facilitator is ${FACILITATOR_EVM_ADDRESS} (extra.facilitatorAddress of GET /v2/x402/supported).`,
      payer,
    );
  }
  const now = BigInt(Math.floor(ctx.clock.now() / 1000));
  if (a.deadline < now + DEADLINE_MARGIN_SECONDS) {
    return no(
      "permit2_deadline_expired",
      `The permit's deadline ${a.deadline} is not at least ${DEADLINE_MARGIN_SECONDS} s after the sandbox's now (${now}): it has expired.`,
      payer,
    );
  }
  if (a.validAfter > now) {
    return no("permit2_not_yet_valid", `witness.validAfter ${a.validAfter} is after the sandbox's now (${now}): the permit is not valid yet.`, payer);
  }
  if (phase === "verify" && a.maxAmount !== p.amount) {
    return no("permit2_amount_mismatch", `The permit allows ${a.maxAmount} but the requirements' maximum is ${p.amount}; they must be equal.`, payer);
  }
  if (a.token.toLowerCase() !== p.asset.toLowerCase()) {
    return no("permit2_token_mismatch", `The permit is for token ${a.token} but the requirements ask for ${p.asset}.`, payer);
  }
  const token = evmTokenByAddress(ledger, a.token);
  if (!token) return no("asset_not_deployed_contract", `${a.token} is not a token on ${ledger} in the sandbox's token table.`, payer);
  const chain = signatureChain(ctx, ledger);
  const hash = hashTypedData({
    domain: { name: "Permit2", chainId: chain.chainId, verifyingContract: PERMIT2_ADDRESS },
    types: UPTO_WITNESS_TYPES,
    primaryType: "PermitWitnessTransferFrom",
    message: {
      permitted: { token: a.token, amount: a.maxAmount },
      spender: a.spender,
      nonce: a.nonce,
      deadline: a.deadline,
      witness: { to: a.to, facilitator: a.facilitator, validAfter: a.validAfter },
    },
  });
  // Permit2 checks as SignatureVerification does: ECDSA, or the payer's ERC-1271 (ERC-6492 before deployment).
  const signed = /^0x[0-9a-fA-F]*$/.test(signature)
    ? await checkEvmSignature(chain, payer, hash, signature as Hex)
    : ({ valid: false, reason: "the signature is not hex" } as const);
  if (!signed.valid) {
    return no(
      "invalid_permit2_signature",
      `The PermitWitnessTransferFrom signature over Permit2's domain on ${ledger} is not ${payer}'s: ${signed.reason}.`,
      payer,
    );
  }
  const charge = p.amount;
  if (phase === "settle" && charge > a.maxAmount) {
    return no("invalid_upto_evm_payload_settlement_exceeds_amount", `The settlement charges ${charge} but the payer authorized at most ${a.maxAmount}.`, payer);
  }
  const sponsored = readEip2612Permit(ctx, p.paymentPayload, { payer, token: a.token, maxAmount: a.maxAmount });
  if (sponsored && "rejection" in sponsored) return sponsored;
  // What the proxy's settle would revert with, in the order Permit2 and the token check it.
  const used = usedAuthorizations(ctx.store).get(authorizationKey(ledger, PERMIT2_ADDRESS, payer, a.nonce.toString()));
  if (used) return no("permit2_invalid_nonce", `Permit2 nonce ${a.nonce} of ${payer} was already used by transaction ${used.transaction}.`, payer);
  const held = balanceOf(ctx.store, ledger, token.address, payer);
  if (held < charge) {
    return no("permit2_insufficient_balance", `${payer} holds ${held} of ${token.symbol} (smallest unit) on ${ledger}; the payment needs ${charge}.`, payer);
  }
  // A permit that would not go through sets nothing: the allowance already given must cover the charge.
  const skipped = sponsored ? await eip2612PermitProblem(ctx, ledger, token, sponsored.permit) : undefined;
  const permit = sponsored && !skipped ? sponsored.permit : undefined;
  const allowed = permit ? permit.value : allowanceOf(ctx.store, ledger, token.address, payer, PERMIT2_ADDRESS);
  if (allowed < charge) {
    return no(
      "permit2_allowance_required",
      `${payer} allows Permit2 ${allowed} of ${token.symbol}; the payment needs ${charge}: approve ${PERMIT2_ADDRESS} on the token first${skipped ? ` (the EIP-2612 permit would not go through: ${skipped})` : ""}.`,
      payer,
    );
  }
  return {
    plan: {
      payer,
      authorization: a,
      signature: signature as Hex,
      charge,
      ...(permit ? { permit } : {}),
    },
  };
}

/**
 * Executes a verified upto authorization: the facilitator's transaction calls the proxy's settle for the
 * charge, Permit2 moves it from the payer (spending the payer's allowance) and the nonce is used. The platform
 * answers once mined, so it lands in the current block. A zero charge sends nothing.
 */
export function settleUptoEvm(ctx: HandlerContext, ledger: string, plan: UptoEvmPlan): LedgerTx | undefined {
  const { authorization: a, charge, permit } = plan;
  if (charge === 0n) return undefined;
  const signature = prepareSignatureForSettlement(ctx.store, ctx.clock, ledger, plan.payer, plan.signature);
  const settleArgs = [
    { permitted: { token: a.token, amount: a.maxAmount }, nonce: a.nonce, deadline: a.deadline },
    charge,
    a.from,
    { to: a.to, facilitator: a.facilitator, validAfter: a.validAfter },
    signature,
  ] as const;
  const logs: LedgerTx["logs"] = [];
  let input: Hex;
  if (permit) {
    const { r, s, v, yParity } = parseSignature(permit.signature);
    const permit2612 = { value: permit.value, deadline: permit.deadline, r, s, v: Number(v ?? BigInt(27 + (yParity ?? 0))) };
    input = encodeFunctionData({ abi: proxyAbi, functionName: "settleWithPermit", args: [permit2612, ...settleArgs] });
    applyEip2612Permit(ctx, ledger, a.token, permit);
    logs.push({
      address: a.token,
      topics: encodeEventTopics({ abi: proxyAbi, eventName: "Approval", args: { owner: a.from, spender: PERMIT2_ADDRESS } }) as Hex[],
      data: encodeAbiParameters([{ type: "uint256" }], [permit.value]),
      logIndex: 0,
    });
  } else {
    input = encodeFunctionData({ abi: proxyAbi, functionName: "settle", args: settleArgs });
  }
  const allowed = allowanceOf(ctx.store, ledger, a.token, a.from, PERMIT2_ADDRESS);
  // An unlimited approval stays unlimited, as ERC-20 tokens treat the maximum allowance.
  if (allowed !== maxUint256) setAllowance(ctx.store, ledger, a.token, a.from, PERMIT2_ADDRESS, allowed - charge);
  setBalance(ctx.store, ledger, a.token, a.from, balanceOf(ctx.store, ledger, a.token, a.from) - charge);
  credit(ctx.store, ledger, a.token, a.to, charge);
  const hash = `0x${ctx.random.hex(32)}` as Hex;
  const record: LedgerTx = {
    hash,
    network: ledger,
    chainId: chainIdOf(ledger)!,
    from: FACILITATOR_EVM_ADDRESS,
    to: UPTO_PERMIT2_PROXY,
    value: "0",
    input,
    nonce: takeNonce(ctx.store, ledger, FACILITATOR_EVM_ADDRESS),
    gas: "150000",
    gasUsed: "98000",
    gasPrice: GAS_PRICE_WEI.toString(),
    type: "eip1559",
    block: settlementBlock(ctx.store, ctx.clock, ledger),
    status: "success",
    logs: [
      ...logs,
      {
        address: a.token,
        topics: encodeEventTopics({ abi: proxyAbi, eventName: "Transfer", args: { from: a.from, to: a.to } }) as Hex[],
        data: encodeAbiParameters([{ type: "uint256" }], [charge]),
        logIndex: logs.length,
      },
    ],
    submittedAtMs: ctx.clock.now(),
  };
  ledgerTxs(ctx.store).put(hash, record);
  const key = authorizationKey(ledger, PERMIT2_ADDRESS, a.from, a.nonce.toString());
  usedAuthorizations(ctx.store).put(key, { id: key, network: ledger, transaction: hash, usedAtMs: ctx.clock.now() });
  return record;
}
