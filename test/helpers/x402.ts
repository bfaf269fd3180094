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
    types: {
      TransferWithAuthorization: [
        { name: "from", type: "address" },
        { name: "to", type: "address" },
        { name: "value", type: "uint256" },
        { name: "validAfter", type: "uint256" },
        { name: "validBefore", type: "uint256" },
        { name: "nonce", type: "bytes32" },
      ],
    },
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
