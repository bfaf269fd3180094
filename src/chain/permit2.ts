/**
 * Permit2 on the simulated chain: the canonical contract address (the same on
 * every network) and the SignatureTransfer message a taker signs so that a
 * spender may move `amount` of `token` once, before `deadline`, under a
 * single-use `nonce`. Permit2 itself moves tokens with `transferFrom`, so the
 * taker first approves Permit2 on the token (a plain ERC-20 `approve`).
 */
import { hashTypedData, type Hex } from "viem";

export const PERMIT2_ADDRESS = "0x000000000022D473030F116dDEE9F6B43aC78BA3" as const;

export interface PermitTransferFrom {
  chainId: number;
  token: `0x${string}`;
  amount: bigint;
  spender: `0x${string}`;
  nonce: bigint;
  deadline: number;
}

/**
 * The EIP-712 typed data of a PermitTransferFrom, in the platform's wire shape
 * (uint256 values as decimal strings, EIP712Domain listed in types).
 *
 * @example hashTypedData(permitTransferFromTypedData(permit))
 */
export function permitTransferFromTypedData(p: PermitTransferFrom) {
  return {
    domain: { name: "Permit2", chainId: p.chainId, verifyingContract: PERMIT2_ADDRESS },
    types: {
      EIP712Domain: [
        { name: "name", type: "string" },
        { name: "chainId", type: "uint256" },
        { name: "verifyingContract", type: "address" },
      ],
      PermitTransferFrom: [
        { name: "permitted", type: "TokenPermissions" },
        { name: "spender", type: "address" },
        { name: "nonce", type: "uint256" },
        { name: "deadline", type: "uint256" },
      ],
      TokenPermissions: [
        { name: "token", type: "address" },
        { name: "amount", type: "uint256" },
      ],
    },
    primaryType: "PermitTransferFrom" as const,
    message: {
      permitted: { token: p.token, amount: p.amount.toString() },
      spender: p.spender,
      nonce: p.nonce.toString(),
      deadline: String(p.deadline),
    },
  };
}

export function permitTransferFromHash(p: PermitTransferFrom): Hex {
  return hashTypedData(permitTransferFromTypedData(p) as never);
}
