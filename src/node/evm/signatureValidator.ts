/**
 * The universal signature validator of ERC-6492, as viem's `verifyHash` / `verifyTypedData` /
 * `verifyMessage` run it: a deployless `eth_call` (no `to`) whose data is the validator's creation code
 * followed by `(address signer, bytes32 hash, bytes signature)`. The constructor answers one byte, 0x01 or
 * 0x00. For a 6492-wrapped signature of a wallet not yet deployed, the validator deploys it through its
 * factory call and asks the wallet (ERC-1271); for a deployed wallet it asks the wallet; otherwise it
 * recovers an ECDSA signer. The check is the platform's own (`checkEvmSignature`), so the node and the
 * platform's facilitator never disagree about a signature.
 */
import { decodeAbiParameters, erc6492SignatureValidatorByteCode, type Hex } from "viem";
import { checkEvmSignature, signatureChain } from "../../wallet/evm-smart-accounts/evmSignatures.js";
import { RpcError } from "../jsonRpc.js";
import type { EvmNodeContext } from "./context.js";

const VALIDATOR_CODE = erc6492SignatureValidatorByteCode.toLowerCase();
const CONSTRUCTOR_ARGS = [{ type: "address" }, { type: "bytes32" }, { type: "bytes" }] as const;

/** The platform's one signature check (wallet/evm-smart-accounts/evmSignatures.ts), with the validator's reverts. */
async function validate(ctx: EvmNodeContext, signer: `0x${string}`, hash: Hex, signature: Hex): Promise<Hex> {
  const check = await checkEvmSignature(signatureChain(ctx, ctx.network), signer, hash, signature);
  if (!check.valid && check.reverts) throw new RpcError(-32000, `execution reverted: SignatureValidator: ${check.reason}`);
  return check.valid ? "0x01" : "0x00";
}

/**
 * The validator's answer to a deployless call, or undefined (at once) when `data` is not its creation code: the
 * caller can fall through to running the code itself.
 *
 * @example await universalSignatureValidation(ctx, data) // "0x01"
 */
export function universalSignatureValidation(ctx: EvmNodeContext, data: Hex): Promise<Hex> | undefined {
  if (!data.toLowerCase().startsWith(VALIDATOR_CODE)) return undefined;
  let args: readonly [`0x${string}`, Hex, Hex];
  try {
    args = decodeAbiParameters(CONSTRUCTOR_ARGS, `0x${data.slice(VALIDATOR_CODE.length)}`);
  } catch {
    throw new RpcError(-32000, "execution reverted");
  }
  return validate(ctx, ...args);
}
