/**
 * A contract the ledger applies (the swap settler, the SpendPermissionManager, Morpho: `SandboxContract`) made
 * callable from bytecode: the frame's caller, value and calldata become the transaction it expects, its logs join
 * the transaction's, and its revert reverts the calling frame with `Error(reason)`.
 */
import { encodeErrorResult, type Hex, keccak256, parseAbi } from "viem";
import type { LedgerLog, SandboxContract } from "./ledger.js";
import { evmBalanceOf, creditEvm, setEvmBalance } from "./balances.js";
import { NATIVE_TOKEN_ADDRESS } from "../tokens.js";
import { type ModelledContract, ModelledRevert } from "./modelled.js";

const ERROR_ABI = parseAbi(["error Error(string)"]);

export function ledgerContractModel(contract: SandboxContract): ModelledContract {
  return {
    address: contract.address,
    gas: contract.gasUsed,
    call(call) {
      if (call.isStatic) throw new ModelledRevert("0x");
      // The EVM has already moved the value to the contract's address; these contracts take it from the sender
      // themselves, and only when the call succeeds, so it goes back first.
      if (call.value > 0n) {
        setEvmBalance(
          call.store,
          call.network,
          NATIVE_TOKEN_ADDRESS,
          contract.address,
          evmBalanceOf(call.store, call.network, NATIVE_TOKEN_ADDRESS, contract.address) - call.value,
        );
        creditEvm(call.store, call.network, NATIVE_TOKEN_ADDRESS, call.caller, call.value);
      }
      const logs: LedgerLog[] = [];
      const result = contract.call(
        call.store,
        call.clock,
        {
          hash: keccak256(call.data),
          network: call.network,
          chainId: call.chainId,
          from: call.caller,
          to: contract.address,
          value: call.value,
          input: call.data,
          nonce: 0,
          gas: contract.gasUsed,
          type: "eip1559",
          internal: true,
        },
        logs,
      );
      if (result.status === "reverted") {
        const reason = result.revertReason ?? "reverted";
        throw new ModelledRevert(encodeErrorResult({ abi: ERROR_ABI, errorName: "Error", args: [reason] }), reason);
      }
      for (const log of logs) call.emit(log.topics, log.data);
      return "0x" as Hex;
    },
  };
}
