/**
 * x402 payments made the way a paying client makes them, with viem alone
 * (independent of the sandbox's code): EIP-3009 authorizations signed over
 * the token's EIP-712 domain, in version 1 and version 2 shapes.
 */
import { toHex } from "viem";
import type { PrivateKeyAccount } from "viem/accounts";
import { randomBytes } from "node:crypto";

export const USDC_BASE_SEPOLIA = "0x036CbD53842c5426634e7929541eC2318f3dCF7e";
export const USDC_SOLANA_DEVNET = "4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU";

/** EIP-3009's `TransferWithAuthorization`, the EIP-712 type a USDC authorization is signed over. */
export const TRANSFER_WITH_AUTHORIZATION = {
  TransferWithAuthorization: [
    { name: "from", type: "address" },
    { name: "to", type: "address" },
    { name: "value", type: "uint256" },
    { name: "validAfter", type: "uint256" },
    { name: "validBefore", type: "uint256" },
    { name: "nonce", type: "bytes32" },
  ],
} as const;

interface Authorization {
  from: `0x${string}`;
  to: `0x${string}`;
  value: string;
  validAfter: string;
  validBefore: string;
  nonce: `0x${string}`;
}

export interface SignOptions {
  to: `0x${string}`;
  value: string;
  nowSeconds: number;
  asset?: `0x${string}`;
  chainId?: number;
  name?: string;
  version?: string;
  validAfter?: number;
  validBefore?: number;
  nonce?: `0x${string}`;
}

/** Signs a TransferWithAuthorization as an EIP-3009 client does. */
export async function signAuthorization(account: PrivateKeyAccount, o: SignOptions) {
  const authorization: Authorization = {
    from: account.address,
    to: o.to,
    value: o.value,
    validAfter: String(o.validAfter ?? o.nowSeconds - 600),
    validBefore: String(o.validBefore ?? o.nowSeconds + 120),
    nonce: o.nonce ?? toHex(randomBytes(32)),
  };
  const signature = await account.signTypedData({
    domain: { name: o.name ?? "USDC", version: o.version ?? "2", chainId: o.chainId ?? 84532, verifyingContract: o.asset ?? USDC_BASE_SEPOLIA },
    types: TRANSFER_WITH_AUTHORIZATION,
    primaryType: "TransferWithAuthorization",
    message: {
      from: authorization.from,
      to: authorization.to,
      value: BigInt(authorization.value),
      validAfter: BigInt(authorization.validAfter),
      validBefore: BigInt(authorization.validBefore),
      nonce: authorization.nonce,
    },
  });
  return { signature, authorization };
}

export const v2Requirements = (payTo: string, amount: string, over: Record<string, unknown> = {}) => ({
  scheme: "exact",
  network: "eip155:84532",
  asset: USDC_BASE_SEPOLIA,
  amount,
  payTo,
  maxTimeoutSeconds: 120,
  extra: { name: "USDC", version: "2" },
  ...over,
});

export const v1Requirements = (payTo: string, amount: string, over: Record<string, unknown> = {}) => ({
  scheme: "exact",
  network: "base-sepolia",
  maxAmountRequired: amount,
  resource: "https://tides.example.org/v1/forecast",
  description: "Hourly tide heights",
  mimeType: "application/json",
  payTo,
  maxTimeoutSeconds: 120,
  asset: USDC_BASE_SEPOLIA,
  extra: { name: "USDC", version: "2" },
  ...over,
});

/** The facilitator request body for a version 2 payment. */
export const v2Body = (requirements: Record<string, unknown>, payload: unknown, extra: Record<string, unknown> = {}) => ({
  x402Version: 2,
  paymentPayload: { x402Version: 2, accepted: requirements, payload, ...extra },
  paymentRequirements: requirements,
});

export const v1Body = (requirements: Record<string, unknown>, payload: unknown) => ({
  x402Version: 1,
  paymentPayload: { x402Version: 1, scheme: "exact", network: requirements.network, payload },
  paymentRequirements: requirements,
});

/** Permit2 and the x402 upto proxy, the same address on every network. */
export const PERMIT2 = "0x000000000022D473030F116dDEE9F6B43aC78BA3" as const;
export const UPTO_PERMIT2_PROXY = "0x4020A4f3b7b90ccA423B9fabCc0CE57C6C240002" as const;

/** Version 2 upto requirements on Base Sepolia, as the upto server scheme fills them in (Permit2, the facilitator's address). */
export const uptoEvmRequirements = (payTo: string, amount: string, facilitatorAddress: string, over: Record<string, unknown> = {}) => ({
  scheme: "upto",
  network: "eip155:84532",
  asset: USDC_BASE_SEPOLIA,
  amount,
  payTo,
  maxTimeoutSeconds: 300,
  extra: { name: "USDC", version: "2", assetTransferMethod: "permit2", facilitatorAddress },
  ...over,
});

export interface UptoPermitOptions {
  to: `0x${string}`;
  facilitator: `0x${string}`;
  amount: string;
  nowSeconds: number;
  deadline?: number;
  validAfter?: number;
  nonce?: bigint;
  spender?: `0x${string}`;
  token?: `0x${string}`;
  chainId?: number;
}

/** Signs an upto PermitWitnessTransferFrom with viem, as the upto client does, with any field overridden. */
export async function signUptoPermit(account: PrivateKeyAccount, o: UptoPermitOptions) {
  const permit2Authorization = {
    from: account.address,
    permitted: { token: o.token ?? USDC_BASE_SEPOLIA, amount: o.amount },
    spender: o.spender ?? UPTO_PERMIT2_PROXY,
    nonce: String(o.nonce ?? BigInt(toHex(randomBytes(32)))),
    deadline: String(o.deadline ?? o.nowSeconds + 300),
    witness: { to: o.to, facilitator: o.facilitator, validAfter: String(o.validAfter ?? 0) },
  };
  const signature = await account.signTypedData({
    domain: { name: "Permit2", chainId: o.chainId ?? 84532, verifyingContract: PERMIT2 },
    types: {
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
    },
    primaryType: "PermitWitnessTransferFrom",
    message: {
      permitted: { token: permit2Authorization.permitted.token, amount: BigInt(o.amount) },
      spender: permit2Authorization.spender,
      nonce: BigInt(permit2Authorization.nonce),
      deadline: BigInt(permit2Authorization.deadline),
      witness: { to: o.to, facilitator: o.facilitator, validAfter: BigInt(permit2Authorization.witness.validAfter) },
    },
  });
  return { signature, permit2Authorization };
}

/** Version 2 upto requirements on Solana devnet, as the upto server scheme fills them in (the channel's settings). */
export const uptoSvmRequirements = (
  payTo: string,
  amount: string,
  keys: { feePayer: string; receiverAuthorizer: string },
  over: Record<string, unknown> = {},
) => ({
  scheme: "upto",
  network: "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1",
  asset: USDC_SOLANA_DEVNET,
  amount,
  payTo,
  maxTimeoutSeconds: 300,
  extra: { ...keys, withdrawDelay: 900, tokenProgram: "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA", paymentFlow: "escrow" },
  ...over,
});

/** The `eip2612GasSponsoring` extension of a payment: an EIP-2612 permit approving Permit2, signed with viem over the token's domain. */
export async function eip2612Extension(
  account: PrivateKeyAccount,
  o: { value: string; nonce: bigint; deadline: number; owner?: `0x${string}`; spender?: `0x${string}`; token?: `0x${string}` },
) {
  const token = o.token ?? USDC_BASE_SEPOLIA;
  const spender = o.spender ?? PERMIT2;
  const signature = await account.signTypedData({
    domain: { name: "USDC", version: "2", chainId: 84532, verifyingContract: token },
    types: {
      Permit: [
        { name: "owner", type: "address" },
        { name: "spender", type: "address" },
        { name: "value", type: "uint256" },
        { name: "nonce", type: "uint256" },
        { name: "deadline", type: "uint256" },
      ],
    },
    primaryType: "Permit",
    message: { owner: account.address, spender, value: BigInt(o.value), nonce: o.nonce, deadline: BigInt(o.deadline) },
  });
  const info = {
    from: o.owner ?? account.address,
    asset: token,
    spender,
    amount: o.value,
    nonce: String(o.nonce),
    deadline: String(o.deadline),
    signature,
    version: "1",
  };
  return { eip2612GasSponsoring: { info } };
}
