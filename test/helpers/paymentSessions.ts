/**
 * Payment-session tests' side of the wire: a merchant's session, and a payer
 * who pays it from a wallet the way a wallet does it — read the options, sign
 * the offered EIP-712 typed data with viem (eth_signTypedData_v4), send the
 * signature back. Nothing here runs the sandbox's code.
 */
import { recoverTypedDataAddress, type Hex } from "viem";
import type { PrivateKeyAccount } from "viem/accounts";
import type { Sandbox } from "cdp-sandbox";
import { call, fund } from "./sandbox.js";
import { TRANSFER_WITH_AUTHORIZATION } from "./x402.js";

export const PS = "/platform/v2/payment-sessions";
/** USDC on Base Sepolia, and the EIP-712 domain its EIP-3009 authorizations are signed over. */
export const USDC = "0x036CbD53842c5426634e7929541eC2318f3dCF7e" as const;
export const USDC_DOMAIN = { name: "USDC", version: "2", chainId: 84532, verifyingContract: USDC } as const;
/** How long an action's transaction takes to land (one Base block). */
export const LANDS_MS = 2_000;

/** A session for `amount` USDC paid to `merchant` on Base Sepolia (more fields through `extra`). */
export async function createSession(sandbox: Sandbox, merchant: string, amount = "10.00", extra: Record<string, unknown> = {}) {
  const res = await call(sandbox, "POST", PS, {
    body: { amount, asset: "usdc", target: { address: merchant, network: "base-sepolia" }, ...extra },
  });
  if (res.status !== 200) throw new Error(`session creation failed: ${res.status} ${res.text}`);
  return res.body as { paymentSessionId: string; x402Url: string; [k: string]: any };
}

/** Credits `units` (6 decimals) of USDC to an address on Base Sepolia. */
export const fundUsdc = (sandbox: Sandbox, address: string, units: string) => fund(sandbox, { network: "base-sepolia", address, amount: units, token: USDC });

/** The payer's options for the addresses (no API key: the payer's own call). */
export const walletOptions = (sandbox: Sandbox, sessionId: string, addresses: string[], query = "") =>
  call(sandbox, "GET", `${PS}/${sessionId}/authorizations/wallet/options?addresses=${addresses.join(",")}${query}`, { anonymous: true });

interface OfferedTypedData {
  domain: { name: string; version: string; chainId: number; verifyingContract: `0x${string}` };
  message: { from: `0x${string}`; to: `0x${string}`; value: string; validAfter: string; validBefore: string; nonce: Hex };
}

/** Signs an option's EIP-3009 payload as a wallet does: the typed data exactly as offered. */
export async function signOffered(signer: PrivateKeyAccount, data: OfferedTypedData): Promise<Hex> {
  const m = data.message;
  return signer.signTypedData({
    domain: data.domain,
    types: TRANSFER_WITH_AUTHORIZATION,
    primaryType: "TransferWithAuthorization",
    message: { ...m, value: BigInt(m.value), validAfter: BigInt(m.validAfter), validBefore: BigInt(m.validBefore) },
  });
}

/** The signer of a TransferWithAuthorization, recovered by viem over USDC's domain on Base Sepolia. */
export function signerOf(m: OfferedTypedData["message"], signature: Hex): Promise<`0x${string}`> {
  return recoverTypedDataAddress({
    domain: USDC_DOMAIN,
    types: TRANSFER_WITH_AUTHORIZATION,
    primaryType: "TransferWithAuthorization",
    message: { ...m, value: BigInt(m.value), validAfter: BigInt(m.validAfter), validBefore: BigInt(m.validBefore) },
    signature,
  });
}

/**
 * Pays a session from `payer`'s wallet: its option, signed by `signer` (the payer unless a test says otherwise), sent
 * to authorizeWalletPaymentSession. Answers that response, and the option it signed.
 */
export async function payFromWallet(
  sandbox: Sandbox,
  sessionId: string,
  payer: PrivateKeyAccount,
  o: { signer?: PrivateKeyAccount; headers?: Record<string, string> } = {},
) {
  const options = await walletOptions(sandbox, sessionId, [payer.address]);
  if (options.status !== 200 || options.body.options.length !== 1) throw new Error(`no option for ${payer.address}: ${options.status} ${options.text}`);
  const option = options.body.options[0];
  const payload = option.payloads[0];
  const signature = await signOffered(o.signer ?? payer, payload.data);
  const res = await call(sandbox, "POST", `${PS}/${sessionId}/authorizations/wallet`, {
    body: { optionId: option.optionId, signedPayloads: [{ payloadId: payload.payloadId, signature }] },
    anonymous: true,
    headers: o.headers,
  });
  return { res, option, signature };
}

export const getSession = async (sandbox: Sandbox, sessionId: string) => (await call(sandbox, "GET", `${PS}/${sessionId}`)).body;
