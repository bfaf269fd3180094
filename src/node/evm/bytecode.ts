/**
 * The node's calls into bytecode: `eth_call` and `eth_estimateGas` of deployed and canonical contracts (and
 * deployless calls), `eth_getStorageAt`, and the errors a node gives for a run that reverts.
 */
import { decodeErrorResult, type Hex } from "viem";
import { type EvmOutcome, type EvmRunRequest, runEvm } from "../../chain/evm/runtime.js";
import { storageAt } from "../../chain/evm/ledgerState.js";
import { reportEvmRevert } from "../../chain/evm/revertTrace.js";
import { BLOCK_GAS_LIMIT, CALL_GAS_CAP } from "../../chain/evm/submissionLimits.js";
import { EVM_MODELS } from "../../products/sandboxContracts.js";
import { RpcError } from "../jsonRpc.js";
import { type EvmNodeContext, hex, latestBlock } from "./context.js";

const ZERO_ADDRESS = "0x0000000000000000000000000000000000000000" as const;

interface CallObject {
  from?: unknown;
  to?: unknown;
  data?: unknown;
  input?: unknown;
  value?: unknown;
  gas?: unknown;
}

const isAddress = (v: unknown): v is `0x${string}` => typeof v === "string" && /^0x[0-9a-fA-F]{40}$/.test(v);

function quantity(v: unknown, field: string, fallback: bigint): bigint {
  if (v === undefined || v === null) return fallback;
  try {
    if (typeof v !== "string" && typeof v !== "number") throw new Error();
    const n = BigInt(v);
    if (n < 0n) throw new Error();
    return n;
  } catch {
    throw new RpcError(-32602, `invalid ${field} ${JSON.stringify(v)}: a hex quantity`);
  }
}

/** A call object of `eth_call` / `eth_estimateGas` as the runtime takes it. */
export function callRequest(call: CallObject | undefined): EvmRunRequest {
  const c = call ?? {};
  if (c.from !== undefined && c.from !== null && !isAddress(c.from))
    throw new RpcError(-32602, `invalid from ${JSON.stringify(c.from)}: a 0x-prefixed 20-byte address`);
  if (c.to !== undefined && c.to !== null && !isAddress(c.to)) throw new RpcError(-32602, `invalid to ${JSON.stringify(c.to)}: a 0x-prefixed 20-byte address`);
  const data = c.data ?? c.input ?? "0x";
  if (typeof data !== "string" || !/^0x([0-9a-fA-F]{2})*$/.test(data)) throw new RpcError(-32602, "invalid data: 0x-prefixed hex bytes");
  const gas = quantity(c.gas, "gas", CALL_GAS_CAP);
  return {
    from: (c.from as `0x${string}` | undefined) ?? ZERO_ADDRESS,
    to: (c.to as `0x${string}` | undefined) ?? null,
    value: quantity(c.value, "value", 0n),
    data: data as Hex,
    gasLimit: gas > CALL_GAS_CAP ? CALL_GAS_CAP : gas,
  };
}

/** The JSON-RPC error of a failed run, as geth words it: code 3 with the revert data, or the EVM's error. */
function runFailure(ctx: EvmNodeContext, outcome: EvmOutcome): RpcError {
  if (outcome.revert) reportEvmRevert(ctx.store, outcome.revert);
  if (outcome.error !== "revert") return new RpcError(-32000, outcome.error ?? "execution failed");
  if (outcome.returnValue === "0x") return new RpcError(3, "execution reverted", "0x");
  let reason = "";
  try {
    const decoded = decodeErrorResult({ abi: [{ type: "error", name: "Error", inputs: [{ name: "message", type: "string" }] }], data: outcome.returnValue });
    reason = `: ${decoded.args[0]}`;
  } catch {
    // A custom error: its data says it, the message cannot.
  }
  return new RpcError(3, `execution reverted${reason}`, outcome.returnValue);
}

/**
 * The EVM gas the calls of one JSON-RPC payload (a call, or a whole batch) may burn together: a block's. Each call
 * stayed under its own 10M cap, but a batch of 1,000 endless eth_calls held the project's EVM queue for 1,000 ×
 * 10M gas (minutes: the fuzzer's batch got no answer in 10 s). A call gets at most what is left of the budget, and
 * once it is spent the batch's further EVM calls are refused with EIP-1474's "limit exceeded" (the rest is
 * answered); a batch of ordinary calls (a few ten thousand gas each) never comes near it.
 */
const PAYLOAD_GAS_BUDGET = BLOCK_GAS_LIMIT;
/** Gas spent per payload: the context object is made once per payload (answerOnLedger) and shared by its calls. */
const spentByPayload = new WeakMap<EvmNodeContext, bigint>();

async function run(ctx: EvmNodeContext, req: EvmRunRequest, retryOfAdmittedCall = false): Promise<EvmOutcome> {
  // An estimate's retries (at most 20, each at the gas its first run used or a little more) belong to a call the
  // budget admitted: counted, never cut off halfway.
  const left = retryOfAdmittedCall ? req.gasLimit : PAYLOAD_GAS_BUDGET - (spentByPayload.get(ctx) ?? 0n);
  if (left <= 0n)
    throw new RpcError(-32005, `limit exceeded: the EVM calls of one request (a batch's together) may use ${PAYLOAD_GAS_BUDGET} gas, and it is spent`);
  const outcome = await runEvm(
    { store: ctx.store, clock: ctx.clock, network: ctx.network, chainId: ctx.chainId, block: latestBlock(ctx) },
    req.gasLimit > left ? { ...req, gasLimit: left } : req,
    EVM_MODELS,
    { commit: false },
  );
  spentByPayload.set(ctx, (spentByPayload.get(ctx) ?? 0n) + outcome.gasUsed);
  return outcome;
}

/** `eth_call` run in the EVM: the return data, or the revert as an error. */
export async function callBytecode(ctx: EvmNodeContext, req: EvmRunRequest): Promise<Hex> {
  const outcome = await run(ctx, req);
  if (!outcome.success) throw runFailure(ctx, outcome);
  return outcome.returnValue;
}

/**
 * `eth_estimateGas` of a bytecode call: the gas it uses, raised until that much is also enough to run it (a call
 * keeps 1/64 of its gas back at every level, so a run may need more than it ends up using).
 */
export async function estimateBytecode(ctx: EvmNodeContext, req: EvmRunRequest): Promise<string> {
  const first = await run(ctx, req);
  if (!first.success) throw runFailure(ctx, first);
  let gas = first.gasUsed;
  for (let tries = 0; tries < 20 && gas < req.gasLimit; tries++) {
    if ((await run(ctx, { ...req, gasLimit: gas }, true)).success) return hex(gas);
    gas = (gas * 11n) / 10n;
  }
  return hex(gas < req.gasLimit ? gas : req.gasLimit);
}

export function eth_getStorageAt(params: unknown[], ctx: EvmNodeContext) {
  if (!isAddress(params[0])) throw new RpcError(-32602, "params[0] must be a 0x address");
  const slot = quantity(params[1], "slot", 0n);
  return storageAt(ctx.store, ctx.network, params[0], slot);
}
