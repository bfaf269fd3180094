/**
 * The contracts every simulated EVM network has from genesis, at their public addresses: a Multicall3-compatible
 * contract and the deterministic CREATE2 deployer. Both are the sandbox's own Solidity (canonical/*.sol), compiled
 * into canonical/code.ts by scripts/compile-canonical-contracts.mjs.
 */
import { CREATE2DEPLOYER_CODE, MULTICALL3_CODE } from "./canonical/code.js";

export const MULTICALL3_ADDRESS = "0xcA11bde05977b3631167028862bE2a173976CA11" as const;
export const CREATE2_DEPLOYER_ADDRESS = "0x4e59b44847b379578588920cA78FbF26c0B4956C" as const;

const CANONICAL: ReadonlyMap<string, `0x${string}`> = new Map([
  [MULTICALL3_ADDRESS.toLowerCase(), MULTICALL3_CODE],
  [CREATE2_DEPLOYER_ADDRESS.toLowerCase(), CREATE2DEPLOYER_CODE],
]);

/** The runtime code of a canonical contract at this address, if it is one. */
export const canonicalCodeAt = (address: string): `0x${string}` | undefined => CANONICAL.get(address.toLowerCase());
