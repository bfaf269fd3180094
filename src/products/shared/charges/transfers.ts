/**
 * The Commerce Transfers contract of the simulated chain: what a checkout's second call,
 * `transferTokenPreApproved(intent)`, runs. It pays one charge, atomically: the payer's USDC (pre-approved to
 * this contract by the checkout's first call) goes to the recipient, the fee to the sandbox operator, with their
 * Transfer logs, and the charge becomes COMPLETED. The intent must be the one the charge's latest hydration
 * issued (checked field by field against the stored charge, instead of an operator signature), before its
 * deadline; anything wrong reverts and changes nothing but the gas paid.
 */
import { decodeFunctionData, encodeAbiParameters, type Hex, keccak256, pad, parseAbi } from "viem";
import {
  allowanceOf,
  type ContractCallResult,
  evmTokenBySymbol,
  type EvmTransactionInput,
  type LedgerLog,
  type SandboxContract,
  setAllowance,
  TRANSFER_TOPIC,
} from "../../../chain/evm/index.js";
import { balanceOf, credit, setBalance } from "../../../chain/index.js";
import type { Clock } from "../../../clock.js";
import type { ProjectTx } from "../../../store/store.js";
import { type ChargeIntent, type ChargeRecord, chargeStatus, charges } from "./model.js";

export const COMMERCE_TRANSFERS_ADDRESS = "0x4b66c771C1374B40D1e6285Ced9cE319e6E31e3f" as const;
/** The operator every intent names; it receives the fees. */
export const COMMERCE_OPERATOR_ADDRESS = "0xA83FAEc1f047E8264D7C2649C3459b253A04d093" as const;
/** The prefix OnchainKit passes along with the operator's signature. */
export const COMMERCE_SIGNATURE_PREFIX = "0x" as const;
const GAS_USED = 90_000n;

const transfersAbi = parseAbi([
  "struct TransferIntent { uint256 recipientAmount; uint256 deadline; address recipient; address recipientCurrency; address refundDestination; uint256 feeAmount; bytes16 id; address operator; bytes signature; bytes prefix; }",
  "function transferTokenPreApproved(TransferIntent _intent)",
]);

/** The hash the sandbox operator "signs": every field of the intent that moves money, and the chain. */
export function intentSignature(charge: Pick<ChargeRecord, "chainId" | "recipient" | "network">, intent: Omit<ChargeIntent, "signature">): Hex {
  const usdc = evmTokenBySymbol(charge.network, "USDC")!.address;
  return keccak256(
    encodeAbiParameters(
      [
        { type: "uint256" },
        { type: "bytes16" },
        { type: "address" },
        { type: "address" },
        { type: "address" },
        { type: "uint256" },
        { type: "uint256" },
        { type: "uint256" },
      ],
      [
        BigInt(charge.chainId),
        intent.id,
        charge.recipient,
        usdc,
        intent.sender,
        BigInt(intent.recipientAmount),
        BigInt(intent.feeAmount),
        BigInt(intent.deadline),
      ],
    ),
  );
}

const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

function payCharge(store: ProjectTx, clock: Clock, tx: EvmTransactionInput, logs: LedgerLog[]): ContractCallResult {
  const revert = (revertReason: string): ContractCallResult => ({ status: "reverted", revertReason });
  let intent: {
    recipientAmount: bigint;
    deadline: bigint;
    recipient: string;
    recipientCurrency: string;
    refundDestination: string;
    feeAmount: bigint;
    id: Hex;
    operator: string;
    signature: Hex;
  };
  try {
    const call = decodeFunctionData({ abi: transfersAbi, data: tx.input });
    [intent] = call.args as unknown as [typeof intent];
  } catch {
    return revert("not a Transfers call: transferTokenPreApproved(TransferIntent) expected");
  }
  if (tx.value !== 0n) return revert("transferTokenPreApproved is not payable");
  const charge = charges(store).findBy("intent", intent.id.toLowerCase());
  const issued = charge?.intent;
  if (!charge || !issued || charge.network !== tx.network) return revert(`InvalidSignature: no charge issued intent ${intent.id} on ${tx.network}`);
  if (chargeStatus(charge, clock.now()) === "COMPLETED") return revert("AlreadyProcessed: the charge was paid already");
  const usdc = evmTokenBySymbol(tx.network, "USDC")!.address;
  const matches =
    intent.recipientAmount === BigInt(issued.recipientAmount) &&
    intent.feeAmount === BigInt(issued.feeAmount) &&
    intent.deadline === BigInt(issued.deadline) &&
    same(intent.recipient, charge.recipient) &&
    same(intent.recipientCurrency, usdc) &&
    same(intent.refundDestination, issued.sender) &&
    same(intent.operator, COMMERCE_OPERATOR_ADDRESS) &&
    intent.signature.toLowerCase() === issued.signature.toLowerCase();
  if (!matches) return revert("InvalidSignature: the intent differs from the one the charge issued");
  if (BigInt(Math.floor(clock.now() / 1000)) > intent.deadline) return revert("ExpiredIntent: the intent's deadline has passed");
  const total = intent.recipientAmount + intent.feeAmount;
  const allowed = allowanceOf(store, tx.network, usdc, tx.from, COMMERCE_TRANSFERS_ADDRESS);
  if (allowed < total) return revert(`InsufficientAllowance: ${tx.from} allows ${allowed} USDC, the charge needs ${total}`);
  const held = balanceOf(store, tx.network, usdc, tx.from);
  if (held < total) return revert(`InsufficientBalance: ${tx.from} holds ${held} USDC, the charge needs ${total}`);
  // Effects, once everything holds.
  setAllowance(store, tx.network, usdc, tx.from, COMMERCE_TRANSFERS_ADDRESS, allowed - total);
  setBalance(store, tx.network, usdc, tx.from, held - total);
  credit(store, tx.network, usdc, charge.recipient, intent.recipientAmount);
  logs.push(transferLog(usdc, tx.from, charge.recipient, intent.recipientAmount, logs.length));
  if (intent.feeAmount > 0n) {
    credit(store, tx.network, usdc, COMMERCE_OPERATOR_ADDRESS, intent.feeAmount);
    logs.push(transferLog(usdc, tx.from, COMMERCE_OPERATOR_ADDRESS, intent.feeAmount, logs.length));
  }
  charges(store).put(charge.chargeId, {
    ...charge,
    status: "COMPLETED",
    payment: { transactionHash: tx.hash, payer: tx.from, paidAt: new Date(clock.now()).toISOString() },
  });
  return { status: "success" };
}

function transferLog(token: `0x${string}`, from: string, to: string, amount: bigint, logIndex: number): LedgerLog {
  const topic = (a: string) => pad(a.toLowerCase() as Hex, { size: 32 });
  return { address: token, topics: [TRANSFER_TOPIC, topic(from), topic(to)], data: encodeAbiParameters([{ type: "uint256" }], [amount]), logIndex };
}

/** The Transfers contract as the ledger runs it. */
export const commerceTransfers: SandboxContract = { address: COMMERCE_TRANSFERS_ADDRESS, gasUsed: GAS_USED, call: payCharge };
