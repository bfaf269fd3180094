/**
 * The `eip2612GasSponsoring` extension of an upto EVM payment: a payer who has
 * not approved Permit2 signs an EIP-2612 `permit(owner, Permit2, value,
 * deadline)` over the token's EIP-712 domain, and the facilitator submits it
 * with the settlement (the proxy's `settleWithPermit`), paying the gas. The
 * permit's fields are checked as facilitators check them; its signature and
 * nonce as the token's `permit` would — a permit that would not go through
 * sets no allowance, and the allowance already given must cover the charge.
 */
import { getAddress, hashTypedData, isAddress, type Hex } from "viem";
import { chainIdOf, type EvmToken, executePermit, PERMIT_TYPES, PERMIT2_ADDRESS, permitNonceOf } from "../../chain/evm/index.js";
import { checkEvmSignature, signatureChain } from "../../wallet/evm-smart-accounts/evmSignatures.js";
import type { HandlerContext } from "../../wallet/types.js";
import type { Rejection } from "./payment.js";

const EXTENSION = "eip2612GasSponsoring";
const DEADLINE_MARGIN_SECONDS = 6n;

export interface Eip2612Permit {
  owner: `0x${string}`;
  value: bigint;
  nonce: bigint;
  deadline: bigint;
  signature: Hex;
}

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v && typeof v === "object" && !Array.isArray(v) ? (v as Obj) : {});

/**
 * Reads the payment's `extensions.eip2612GasSponsoring.info` and checks its fields against the payment: the
 * owner is the payer, the asset the token, the spender Permit2, the deadline not past, the value the permitted
 * maximum. Undefined when the payment carries no signed permit (only the resource server's declaration).
 */
export function readEip2612Permit(
  ctx: HandlerContext,
  paymentPayload: Obj,
  expected: { payer: `0x${string}`; token: `0x${string}`; maxAmount: bigint },
): { permit: Eip2612Permit } | { rejection: Rejection } | undefined {
  const info = obj(obj(obj(paymentPayload.extensions)[EXTENSION]).info);
  // The resource server declares the extension and clients echo the declaration: only a signed permit counts.
  if (["from", "asset", "spender", "amount", "nonce", "deadline", "signature", "version"].some((k) => !info[k])) return undefined;
  const no = (reason: Rejection["reason"], message: string) => ({ rejection: { reason, message, payer: expected.payer } });
  const digits = (v: unknown) => typeof v === "string" && /^[0-9]+$/.test(v);
  const address = (v: unknown): v is string => typeof v === "string" && isAddress(v, { strict: false });
  if (
    !address(info.from) ||
    !address(info.asset) ||
    !address(info.spender) ||
    !digits(info.amount) ||
    !digits(info.nonce) ||
    !digits(info.deadline) ||
    typeof info.signature !== "string" ||
    !/^0x[0-9a-fA-F]+$/.test(info.signature) ||
    typeof info.version !== "string" ||
    !/^[0-9]+(\.[0-9]+)*$/.test(info.version)
  ) {
    return no(
      "invalid_eip2612_extension_format",
      "extensions.eip2612GasSponsoring.info needs from, asset and spender addresses, amount, nonce and deadline as unsigned integers, a hex signature and a version.",
    );
  }
  if (getAddress(info.from) !== expected.payer) return no("eip2612_from_mismatch", `The permit's owner is ${info.from}, not the payer ${expected.payer}.`);
  if (getAddress(info.asset) !== expected.token)
    return no("eip2612_asset_mismatch", `The permit is for ${info.asset}, not the payment's token ${expected.token}.`);
  if (getAddress(info.spender) !== PERMIT2_ADDRESS)
    return no("eip2612_spender_not_permit2", `The permit's spender is ${info.spender}, not Permit2 ${PERMIT2_ADDRESS}.`);
  const deadline = BigInt(info.deadline as string);
  const now = BigInt(Math.floor(ctx.clock.now() / 1000));
  if (deadline < now + DEADLINE_MARGIN_SECONDS) return no("eip2612_deadline_expired", `The permit's deadline ${deadline} has passed (sandbox now ${now}).`);
  const value = BigInt(info.amount as string);
  if (value !== expected.maxAmount) {
    return no("permit2_2612_amount_mismatch", `The permit approves ${value} but the Permit2 authorization is for ${expected.maxAmount}; they must be equal.`);
  }
  return { permit: { owner: expected.payer, value, nonce: BigInt(info.nonce as string), deadline, signature: info.signature as Hex } };
}

/** Why the token's `permit` would revert (signature, nonce), or undefined when it would set the allowance. */
export async function eip2612PermitProblem(ctx: HandlerContext, network: string, token: EvmToken, permit: Eip2612Permit): Promise<string | undefined> {
  if (!token.eip712) return `${token.symbol} has no EIP-2612 permit`;
  const expectedNonce = permitNonceOf(ctx.store, network, token.address, permit.owner);
  if (permit.nonce !== expectedNonce) return `the permit's nonce is ${permit.nonce} but the token's nonces(owner) is ${expectedNonce}`;
  const hash = hashTypedData({
    domain: { ...token.eip712, chainId: chainIdOf(network)!, verifyingContract: token.address },
    types: PERMIT_TYPES,
    primaryType: "Permit",
    message: { owner: permit.owner, spender: PERMIT2_ADDRESS, value: permit.value, nonce: permit.nonce, deadline: permit.deadline },
  });
  // FiatToken v2.2 checks a permit as SignatureChecker does: ECDSA, or the owner's ERC-1271.
  const check = /^0x[0-9a-fA-F]*$/.test(permit.signature)
    ? await checkEvmSignature(signatureChain(ctx, network), permit.owner, hash, permit.signature)
    : ({ valid: false, reason: "the signature is not hex" } as const);
  return check.valid ? undefined : `the permit's signature is not ${permit.owner}'s: ${check.reason}`;
}

/** Executes the permit: the allowance to Permit2 becomes its value and the owner's permit nonce moves on. */
export function applyEip2612Permit(ctx: HandlerContext, network: string, token: `0x${string}`, permit: Eip2612Permit): void {
  executePermit(ctx.store, network, token, permit.owner, PERMIT2_ADDRESS, permit.value, permit.nonce);
}
