/**
 * The sandbox's paymaster and the one set of rules for who pays a user operation's gas, whichever way the operation
 * arrives:
 *
 * - a platform request (project and end-user user operations, end users' asset sends, borrowing) asks for a paymaster
 *   with `useCdpPaymaster` or `paymasterUrl` — never both — and may add `paymasterContext` only with one
 *   (`paymasterRequested`); a smart account's gas is always sponsored, a delegated EOA's only when asked
 *   (`sponsoredFor`);
 * - an ERC-4337 operation sent to the node's bundler is sponsored when it names the sandbox's paymaster; any other
 *   paymaster cannot be run (`paymasterOf`, AA30), and the ERC-7677 `pm_` methods hand out the sandbox's paymaster
 *   fields (`paymasterFields`).
 *
 * The paymaster sponsors everything that names it, on every network, with no policy of its own.
 */
import { getAddress, type Hex, keccak256, toHex } from "viem";
import { apiError } from "../../errors/catalogue.js";

/** The sandbox's paymaster: it sponsors every user operation that names it (a sandbox address, on every network). */
export const SANDBOX_PAYMASTER = getAddress(`0x${keccak256(toHex("cdp-sandbox:paymaster")).slice(-40)}`);
/** The verification gas the sandbox's paymaster asks for (v0.7 operations carry it). */
export const PAYMASTER_VERIFICATION_GAS = 50_000n;

/** How a platform request chooses a paymaster (each operation's body has some of these fields). */
export interface PaymasterChoice {
  useCdpPaymaster?: boolean;
  paymasterUrl?: string;
  paymasterContext?: Record<string, unknown>;
}

/**
 * Whether a platform request asks a paymaster to pay its operation's gas; 400 for a contradictory choice.
 *
 * @example paymasterRequested(req.body) // true for { useCdpPaymaster: true }
 */
export function paymasterRequested(body: PaymasterChoice): boolean {
  if (body.useCdpPaymaster === true && body.paymasterUrl !== undefined) {
    throw apiError("invalid_request", "useCdpPaymaster and paymasterUrl cannot be used together; choose one paymaster.");
  }
  const requested = body.useCdpPaymaster === true || body.paymasterUrl !== undefined;
  if (body.paymasterContext !== undefined && !requested) {
    throw apiError("invalid_request", "paymasterContext is only valid with a paymaster: set useCdpPaymaster or paymasterUrl.");
  }
  return requested;
}

/**
 * Who pays a platform user operation's gas: the paymaster for smart accounts; for an EOA with an EIP-7702 delegation
 * (which holds ETH of its own), a paymaster only if the request asks for one.
 */
export const sponsoredFor = (account: { delegated?: boolean }, requested: boolean): boolean => !account.delegated || requested;

/**
 * Whether the sandbox's paymaster sponsors an ERC-4337 operation naming `paymaster` (none: the sender pays), or why
 * the EntryPoint cannot run it.
 */
export function paymasterOf(paymaster: string | undefined): { sponsored: boolean } | { refused: string } {
  if (!paymaster) return { sponsored: false };
  if (paymaster.toLowerCase() !== SANDBOX_PAYMASTER.toLowerCase())
    return { refused: `AA30 paymaster not deployed: ${paymaster} is not the sandbox's paymaster ${SANDBOX_PAYMASTER}` };
  return { sponsored: true };
}

/**
 * ERC-7677: the sandbox's paymaster fields for an operation of the EntryPoint `version` — `paymasterAndData` for
 * v0.6; `paymaster`, `paymasterData` and, for the stub (`withGas`), the paymaster's gas limits for v0.7.
 */
export function paymasterFields(version: "0.6" | "0.7", withGas: boolean) {
  const sponsor = { name: "CDP Sandbox" };
  if (version === "0.6") return { paymasterAndData: SANDBOX_PAYMASTER as Hex, sponsor };
  return {
    paymaster: SANDBOX_PAYMASTER,
    paymasterData: "0x" as Hex,
    ...(withGas ? { paymasterVerificationGasLimit: toHex(PAYMASTER_VERIFICATION_GAS), paymasterPostOpGasLimit: "0x0" } : {}),
    sponsor,
  };
}
