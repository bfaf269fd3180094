/**
 * The universal signature validator of ERC-6492, as viem's `verifyHash` / `verifyTypedData` /
 * `verifyMessage` run it: a deployless `eth_call` (no `to`) whose data is the validator's creation code
 * followed by `(address signer, bytes32 hash, bytes signature)`. The constructor answers one byte, 0x01 or
 * 0x00. For a 6492-wrapped signature of a wallet not yet deployed, the validator deploys it through its
 * factory call and asks the wallet (ERC-1271); for a deployed wallet it asks the wallet; otherwise it
 * recovers an ECDSA signer. Sandbox wallets are Coinbase Smart Wallets, checked as their code does.
 */
import { decodeAbiParameters, erc6492SignatureValidatorByteCode, type Hex, isErc6492Signature, parseErc6492Signature } from "viem";
import { recoverEvmSigner } from "../../crypto/evm.js";
import { isValidSmartWalletSignature } from "../../crypto/smartWallet.js";
import { deployedWalletOwners, isWalletDeployed, walletCreatedBy } from "../../domains/evm-smart-accounts/smartWalletFactory.js";
import { RpcError } from "../jsonRpc.js";
import type { EvmNodeContext } from "./context.js";

const VALIDATOR_CODE = erc6492SignatureValidatorByteCode.toLowerCase();
const CONSTRUCTOR_ARGS = [{ type: "address" }, { type: "bytes32" }, { type: "bytes" }] as const;

const reverted = (reason: string) => new RpcError(-32000, `execution reverted: SignatureValidator: ${reason}`);

function isValid(ctx: EvmNodeContext, signer: `0x${string}`, hash: Hex, signature: Hex): boolean {
  const deployed = isWalletDeployed(ctx.store, ctx.network, signer) ? deployedWalletOwners(ctx.store, signer) : undefined;
  if (isErc6492Signature(signature)) {
    const { address: factory, data: factoryData, signature: inner } = parseErc6492Signature(signature);
    let owners = deployed;
    if (!owners) {
      // The factory call runs first; the signer must have code afterwards, or the validator reverts.
      const created = factory && factoryData ? walletCreatedBy(factory, factoryData) : { error: "no factory call" };
      if ("error" in created || created.address.toLowerCase() !== signer.toLowerCase()) throw reverted("deployment");
      owners = created.owners;
    }
    return isValidSmartWalletSignature({ owners, chainId: ctx.chainId, wallet: signer, hash, signature: inner });
  }
  if (deployed) return isValidSmartWalletSignature({ owners: deployed, chainId: ctx.chainId, wallet: signer, hash, signature });
  if (!/^0x[0-9a-fA-F]{130}$/.test(signature)) throw reverted("invalid signature length");
  return recoverEvmSigner(hash, signature)?.toLowerCase() === signer.toLowerCase();
}

/**
 * The validator's answer to a deployless call, or undefined when `data` is not its creation code.
 *
 * @example universalSignatureValidation(ctx, data) // "0x01"
 */
export function universalSignatureValidation(ctx: EvmNodeContext, data: Hex): Hex | undefined {
  if (!data.toLowerCase().startsWith(VALIDATOR_CODE)) return undefined;
  let args: readonly [`0x${string}`, Hex, Hex];
  try {
    args = decodeAbiParameters(CONSTRUCTOR_ARGS, `0x${data.slice(VALIDATOR_CODE.length)}`);
  } catch {
    throw new RpcError(-32000, "execution reverted");
  }
  return isValid(ctx, ...args) ? "0x01" : "0x00";
}
