/**
 * Accounts whose code is bytecode, asked about a signature as a contract on chain asks them: ERC-1271's
 * `isValidSignature(bytes32,bytes)` run as a static call, and, for an ERC-6492 signature of an account not
 * deployed yet, ERC-6492's universal validator (viem's creation code, run deployless) which makes the factory
 * call and then asks the account it created. Both runs are thrown away: nothing they do stays in the ledger.
 */
import { encodeAbiParameters, encodeFunctionData, erc6492SignatureValidatorByteCode, type Hex, serializeErc6492Signature } from "viem";
import type { Clock } from "../../clock.js";
import type { ProjectTx } from "../../store/store.js";
import { headBlock } from "../mining.js";
import { canonicalCodeAt } from "./canonical.js";
import { hasDeployedCode } from "./ledgerState.js";
import type { ModelledContract } from "./modelled.js";
import { runEvm } from "./runtime.js";

/** Where a signature is checked: the project's ledger on one EVM network. */
export interface AccountChain {
  store: ProjectTx;
  clock: Clock;
  network: string;
  chainId: number;
}

/** ERC-1271's answer for a valid signature: the selector of `isValidSignature(bytes32,bytes)`. */
const MAGIC_VALUE = "0x1626ba7e";
/**
 * The gas a signature check may burn. Wallets spend a few thousand (ECDSA recovery, a storage read); a 6492
 * deployment a few hundred thousand. The cap keeps a hostile account from holding its project's EVM queue.
 */
const CHECK_GAS = 5_000_000n;
const ZERO_ADDRESS = "0x0000000000000000000000000000000000000000" as const;
const IS_VALID_SIGNATURE = [
  {
    type: "function",
    name: "isValidSignature",
    stateMutability: "view",
    inputs: [
      { name: "hash", type: "bytes32" },
      { name: "signature", type: "bytes" },
    ],
    outputs: [{ name: "", type: "bytes4" }],
  },
] as const;
const VALIDATOR_ARGS = [{ type: "address" }, { type: "bytes32" }, { type: "bytes" }] as const;

/**
 * The EVM runtime's bytecode accounts (the `ContractAccounts` of wallet/evm-smart-accounts/evmSignatures.ts), with the
 * modelled contracts the runs may reach.
 *
 * @example await bytecodeAccounts(EVM_MODELS).isValidSignature(chain, wallet, hash, signature) // true
 */
export function bytecodeAccounts(models: (network: string) => readonly ModelledContract[]) {
  const call = (chain: AccountChain, to: `0x${string}` | null, data: Hex, isStatic: boolean) =>
    runEvm(
      {
        store: chain.store,
        clock: chain.clock,
        network: chain.network,
        chainId: chain.chainId,
        block: headBlock(chain.store, chain.network, chain.clock.now()),
      },
      { from: ZERO_ADDRESS, to, value: 0n, data, gasLimit: CHECK_GAS, ...(isStatic ? { isStatic } : {}) },
      models,
      { commit: false },
    );
  return {
    hasCode: (chain: AccountChain, address: `0x${string}`): boolean =>
      hasDeployedCode(chain.store, chain.network, address) || canonicalCodeAt(address) !== undefined,

    async isValidSignature(
      chain: AccountChain,
      address: `0x${string}`,
      hash: Hex,
      signature: Hex,
      deployment?: { factory: `0x${string}`; factoryData: Hex },
    ): Promise<boolean> {
      if (!deployment) {
        const outcome = await call(
          chain,
          address,
          encodeFunctionData({ abi: IS_VALID_SIGNATURE, functionName: "isValidSignature", args: [hash, signature] }),
          true,
        );
        // A bytes4 return is ABI-encoded left-aligned in one 32-byte word.
        return outcome.success && outcome.returnValue.length >= 10 && outcome.returnValue.slice(0, 10).toLowerCase() === MAGIC_VALUE;
      }
      // The validator's constructor deploys through the factory, asks the new account and returns one byte.
      const wrapped = serializeErc6492Signature({ address: deployment.factory, data: deployment.factoryData, signature });
      const data = `${erc6492SignatureValidatorByteCode}${encodeAbiParameters(VALIDATOR_ARGS, [address, hash, wrapped]).slice(2)}` as Hex;
      const outcome = await call(chain, null, data, false);
      return outcome.success && outcome.returnValue === "0x01";
    },
  };
}
