/**
 * One answer to "did `address` sign this?" on an EVM network, as a contract that calls
 * ERC-6492's universal validator (viem's `verifyHash`, USDC's SignatureChecker, an x402 facilitator)
 * gets it on chain — so the platform accepts exactly what a chain would:
 *
 * - a signature wrapped for ERC-6492 (`factory`, `factoryData`, inner signature, magic suffix): when the
 *   account has no code yet, the factory call is run first and the wallet it creates is asked (ERC-1271)
 *   about the inner signature; a factory call that does not create `address` makes the signature invalid;
 * - an account with code: its `isValidSignature(hash, signature)` (ERC-1271) decides;
 * - anything else: the ECDSA signer of the hash (65 bytes) must be `address`.
 *
 * The accounts that run here are the sandbox's Coinbase Smart Wallets (modelled: their owners sign the
 * wallet's replay-safe hash, in a `SignatureWrapper`) and, through `ContractAccounts`, any bytecode the
 * EVM runtime holds. The x402 facilitator (`exact`, `upto`), payment sessions' wallet payer, the node's
 * deployless validator call and SIWE sign-in all verify through here.
 */
import { type Hex, hashMessage, isErc6492Signature, parseErc6492Signature, type SignableMessage } from "viem";
import { bytecodeAccounts, type ChainContracts, chainIdOf } from "../../chain/evm/index.js";
import type { Clock } from "../../clock.js";
import { recoverEvmSigner } from "../../crypto/evm.js";
import { isValidSmartWalletSignature } from "../../crypto/smartWallet.js";
import type { ProjectTx } from "../../store/store.js";
import { deployedWalletOwners, isWalletDeployed, recordDeployment, walletCreatedBy } from "./smartWalletFactory.js";

/** A factory call an ERC-6492 signature carries: what deploys the signer before it is asked. */
interface CounterfactualDeployment {
  factory: `0x${string}`;
  factoryData: Hex;
}

/**
 * Accounts whose code is bytecode (deployed through the EVM runtime), as the runtime answers for them. The
 * runtime runs `isValidSignature(bytes32,bytes)` as a static call (one run without commit, on its queue: hence a
 * promise) and compares the answer with the magic value 0x1626ba7e; with a `deployment`, it runs the factory call
 * first in the same run, which it throws away.
 */
export interface ContractAccounts {
  hasCode(chain: SignatureChain, address: `0x${string}`): boolean;
  isValidSignature(chain: SignatureChain, address: `0x${string}`, hash: Hex, signature: Hex, deployment?: CounterfactualDeployment): Promise<boolean>;
}

/** The chain a signature is checked on: the project's ledger on one network. */
export interface SignatureChain {
  store: ProjectTx;
  clock: Clock;
  network: string;
  chainId: number;
  /** The EVM runtime's bytecode accounts; without it, only the modelled wallets and ECDSA signers are known. */
  contracts?: ContractAccounts;
}

/** What a signature check found: how the account signed, or why the signature is not the account's. */
export type EvmSignatureCheck =
  | {
      valid: true;
      by: "ecdsa" | "erc1271" | "erc6492";
      /** What the account's own check receives: the inner signature of a 6492 wrapper, else the signature. */
      accountSignature: Hex;
    }
  | {
      valid: false;
      reason: string;
      /** The universal validator reverts here (a 6492 deployment that fails, a malformed ECDSA signature) instead of answering false. */
      reverts?: true;
    };

/**
 * The chain context of a handler's project on `network` (an EVM network of the table). The EVM runtime's
 * bytecode accounts are added here, once, for every caller.
 *
 * @example await verifyEvmSignature(signatureChain(ctx, "base-sepolia"), payer, hash, signature)
 */
export function signatureChain(ctx: { store: ProjectTx; clock: Clock; contracts: ChainContracts }, network: string): SignatureChain {
  const chainId = chainIdOf(network);
  if (chainId === undefined) throw new Error(`${network} is not an EVM network of the sandbox`);
  return { store: ctx.store, clock: ctx.clock, network, chainId, contracts: contractAccountsOf(ctx.contracts) };
}

/** The bytecode accounts of a table of contracts, built once per table (the sandbox has one). */
function contractAccountsOf(contracts: ChainContracts): ContractAccounts {
  let accounts = accountsByTable.get(contracts);
  if (!accounts) {
    accounts = bytecodeAccounts(contracts.evm);
    accountsByTable.set(contracts, accounts);
  }
  return accounts;
}
const accountsByTable = new WeakMap<ChainContracts, ContractAccounts>();

const hashOf = (hashOrMessage: Hex | { message: SignableMessage }): Hex =>
  typeof hashOrMessage === "string" ? hashOrMessage : hashMessage(hashOrMessage.message);

/** The owners of the modelled wallet deployed at `address` on the chain's network, if one is. */
function modelledWalletOwners(chain: SignatureChain, address: `0x${string}`): string[] | undefined {
  return isWalletDeployed(chain.store, chain.network, address) ? deployedWalletOwners(chain.store, address) : undefined;
}

/**
 * Checks `signature` by `address` over a 32-byte hash, or over a message as EIP-191 `personal_sign` hashes it.
 *
 * @example await checkEvmSignature(chain, smartAccount, hashTypedData(typedData), signature) // { valid: true, by: "erc6492", ... }
 */
export async function checkEvmSignature(
  chain: SignatureChain,
  address: `0x${string}`,
  hashOrMessage: Hex | { message: SignableMessage },
  signature: Hex,
): Promise<EvmSignatureCheck> {
  const hash = hashOf(hashOrMessage);
  const erc1271 = async (accountSignature: Hex, by: "erc1271" | "erc6492"): Promise<EvmSignatureCheck> => {
    const owners = modelledWalletOwners(chain, address);
    const valid = owners
      ? isValidSmartWalletSignature({ owners, chainId: chain.chainId, wallet: address, hash, signature: accountSignature })
      : (await chain.contracts?.isValidSignature(chain, address, hash, accountSignature)) === true;
    return valid ? { valid, by, accountSignature } : { valid, reason: `${address}'s isValidSignature rejects the signature` };
  };
  const hasCode = (): boolean => modelledWalletOwners(chain, address) !== undefined || chain.contracts?.hasCode(chain, address) === true;

  if (isErc6492Signature(signature)) {
    let parsed: ReturnType<typeof parseErc6492Signature>;
    try {
      parsed = parseErc6492Signature(signature);
    } catch {
      return { valid: false, reason: "the ERC-6492 wrapper does not decode as (address factory, bytes factoryData, bytes signature)", reverts: true };
    }
    const { address: factory, data: factoryData, signature: inner } = parsed;
    // A deployed account is asked directly, with the inner signature: the factory call is not needed.
    if (hasCode()) return erc1271(inner, "erc6492");
    if (!factory || !factoryData) return { valid: false, reason: "the ERC-6492 wrapper carries no factory call", reverts: true };
    const deployment = { factory, factoryData };
    const created = walletCreatedBy(factory, factoryData);
    if (!("error" in created)) {
      if (created.address.toLowerCase() !== address.toLowerCase())
        return { valid: false, reason: `the ERC-6492 factory call creates ${created.address}, not ${address}`, reverts: true };
      const valid = isValidSmartWalletSignature({ owners: created.owners, chainId: chain.chainId, wallet: address, hash, signature: inner });
      return valid
        ? { valid, by: "erc6492", accountSignature: inner }
        : { valid, reason: `the wallet ${address} would deploy with owners ${created.owners.join(", ")}, and none of them signed` };
    }
    if (await chain.contracts?.isValidSignature(chain, address, hash, inner, deployment)) return { valid: true, by: "erc6492", accountSignature: inner };
    return { valid: false, reason: `the ERC-6492 factory call does not deploy a wallet that accepts the signature (${created.error})`, reverts: true };
  }
  if (hasCode()) return erc1271(signature, "erc1271");
  if (!/^0x[0-9a-fA-F]{130}$/.test(signature))
    return { valid: false, reason: `${address} has no code, and the signature is not a 65-byte ECDSA signature`, reverts: true };
  const signer = recoverEvmSigner(hash, signature);
  if (signer?.toLowerCase() === address.toLowerCase()) return { valid: true, by: "ecdsa", accountSignature: signature };
  return { valid: false, reason: signer ? `the ECDSA signature recovers ${signer}, not ${address}` : "the ECDSA signature recovers no signer" };
}

/**
 * Whether `address` signed `hashOrMessage` (a 32-byte hash, or `{ message }` hashed as EIP-191), by ECDSA,
 * ERC-1271 or ERC-6492: what viem's `verifyHash` / `verifyMessage` answer against the chain.
 *
 * @example await verifyEvmSignature(signatureChain(ctx, "base"), address, { message: siweMessage }, signature)
 */
export async function verifyEvmSignature(
  chain: SignatureChain,
  address: `0x${string}`,
  hashOrMessage: Hex | { message: SignableMessage },
  signature: Hex,
): Promise<boolean> {
  return (await checkEvmSignature(chain, address, hashOrMessage, signature)).valid;
}

/**
 * What a settlement does with a verified signature before the account's own check runs on chain, as
 * facilitators do: an ERC-6492 wrapper's factory call is run when the account has no code yet (a modelled
 * factory's wallet is recorded as deployed; a bytecode factory is the EVM runtime's to run), and the inner
 * signature is what the account is given. Any other signature is given as it is.
 *
 * @example const signature = prepareSignatureForSettlement(ctx.store, ctx.clock, "base-sepolia", payer, plan.signature)
 */
export function prepareSignatureForSettlement(store: ProjectTx, clock: Clock, network: string, address: `0x${string}`, signature: Hex): Hex {
  if (!isErc6492Signature(signature)) return signature;
  const { address: factory, data: factoryData, signature: inner } = parseErc6492Signature(signature);
  if (factory && factoryData && !isWalletDeployed(store, network, address)) {
    const created = walletCreatedBy(factory, factoryData);
    if (!("error" in created) && created.address.toLowerCase() === address.toLowerCase()) recordDeployment(store, clock, network, address, created.owners);
  }
  return inner;
}
