/**
 * Runs EVM bytecode against a project's ledger (@ethereumjs/evm, used unmodified). One EVM per project and network
 * (the most recently used few are kept), its state manager pointed at the run's transaction (ledgerState.ts), and
 * one queue per project: a run pauses (yieldingWork.ts), and no other run may re-point that EVM's state manager
 * meanwhile. Another project's runs have their own EVM and queue, so one project's long run never holds them.
 *
 * Modelled contracts (modelled.ts) are precompiles at their addresses; the caller, value and static flag of
 * the frame that reached them come from the EVM's message events, kept as a stack. A modelled contract that
 * throws anything reverts its frame: the process never crashes on a model's mistake.
 */
import { createCustomCommon, Hardfork, Mainnet } from "@ethereumjs/common";
import { createEVM, type EVM, EVMError, type EVMResult, type ExecResult, type Message, type PrecompileInput } from "@ethereumjs/evm";
import { type Address, bytesToHex, createAddressFromString, hexToBytes } from "@ethereumjs/util";
import type { Hex } from "viem";
import type { Clock } from "../../clock.js";
import type { ProjectTx } from "../../store/store.js";
import { BLOCK_COINBASE, blockHashOf, blockTimestampOf, prevRandaoOf } from "../blocks.js";
import { GAS_PRICE_WEI } from "./ledger.js";
import { canonicalCodeAt } from "./canonical.js";
import { JournaledTx } from "./journaledTx.js";
import { LedgerStateManager } from "./ledgerState.js";
import { type ModelledContract, ModelledRevert } from "./modelled.js";
import { type EvmRevertTrace, revertReason } from "./revertTrace.js";
import { evmBudgetOf, type EvmTimeBudget } from "./evmBudget.js";
import { BLOCK_GAS_LIMIT } from "./submissionLimits.js";
import { yieldingWork } from "./yieldingWork.js";

/** What a run reads: the project (in the request's transaction), the clock, and the block it runs in. */
export interface EvmRunContext {
  store: ProjectTx;
  clock: Clock;
  network: string;
  chainId: number;
  /** The block the run sees (`block.number`, `block.timestamp`). */
  block: number;
}

export interface EvmRunRequest {
  from: `0x${string}`;
  /** null: a contract creation, `data` being its init code. */
  to: `0x${string}` | null;
  value: bigint;
  data: Hex;
  gasLimit: bigint;
  /** The sender's nonce for this transaction (a creation's address depends on it); the sender's current one if absent. */
  nonce?: number;
  /** A contract's own call (a smart wallet's batch): the sender's nonce is neither set nor counted up. */
  internal?: boolean;
  /** A static call (STATICCALL's rules: no state change, no log, no value): how ERC-1271 accounts are asked. */
  isStatic?: boolean;
}

interface EvmLog {
  address: `0x${string}`;
  topics: Hex[];
  data: Hex;
}

export interface EvmOutcome {
  success: boolean;
  /** What the call returned, or its revert data. */
  returnValue: Hex;
  /** All gas the transaction burns: intrinsic, execution, less the refund. */
  gasUsed: bigint;
  logs: EvmLog[];
  createdAddress?: `0x${string}`;
  /** Why it failed, in the EVM's words ("revert", "out of gas", …). */
  error?: string;
  /** Where a failed run failed: the frame its failure started in. */
  revert?: Omit<EvmRevertTrace, "transactionHash">;
}

/** The gas a transaction pays before its first opcode: the base, its calldata, and a creation's surcharge. */
function intrinsicGas(data: Uint8Array, creation: boolean): bigint {
  let gas = 21_000n;
  for (const byte of data) gas += byte === 0 ? 4n : 16n;
  if (creation) gas += 32_000n + 2n * BigInt(Math.ceil(data.length / 32));
  return gas;
}

interface Runtime {
  evm: EVM;
  state: LedgerStateManager;
  /** The frames in progress, outermost first: what a modelled contract's caller is. */
  frames: Message[];
  /** The context of the run in progress (set inside the queue only), with the time budget it runs under, if any. */
  run?: { ctx: EvmRunContext; store: JournaledTx; logs: ExecLog[]; failure?: FrameFailure; budget?: EvmTimeBudget };
}

/** The frame a failure started in, and the shallowest frame that has passed its revert data up so far. */
interface FrameFailure {
  origin: Omit<EvmRevertTrace, "transactionHash">;
  atDepth: number;
}

type ExecLog = [Uint8Array, Uint8Array[], Uint8Array];

/** EVMs kept, most recently used last: one per project and network in use, each a few hundred kilobytes. */
const runtimes = new Map<string, Promise<Runtime>>();
const KEPT_RUNTIMES = 32;
/** Each project's EVM work, in order: the tail of its queue while there is any. */
const queues = new Map<string, Promise<unknown>>();

/** Runs `work` after all of the project's EVM work queued before it, whatever that work's outcome. */
function enqueue<T>(projectId: string, work: () => Promise<T>): Promise<T> {
  const next = (queues.get(projectId) ?? Promise.resolve()).then(work, work);
  const tail = next.catch(() => undefined);
  queues.set(projectId, tail);
  void tail.then(() => {
    if (queues.get(projectId) === tail) queues.delete(projectId);
  });
  return next;
}

/** Code at an address without a deployment: the canonical contracts, and a stub where a modelled contract is. */
const genesisCode =
  (models: (network: string) => readonly ModelledContract[]) =>
  (network: string, address: string): `0x${string}` | undefined => {
    const canonical = canonicalCodeAt(address);
    if (canonical) return canonical;
    const a = address.toLowerCase();
    // 0xfe (INVALID): never executed, the precompile answers instead; it makes eth_getCode and extcodesize non-empty.
    return models(network).some((m) => m.address.toLowerCase() === a) ? "0xfe" : undefined;
  };

function runtimeOf(projectId: string, network: string, chainId: number, models: (network: string) => readonly ModelledContract[]): Promise<Runtime> {
  const key = `${projectId}\n${network}`;
  const made = runtimes.get(key) ?? createRuntime(network, chainId, models);
  // Most recently used last; the least recently used goes (a run still holding it finishes on it).
  runtimes.delete(key);
  runtimes.set(key, made);
  if (runtimes.size > KEPT_RUNTIMES) runtimes.delete(runtimes.keys().next().value!);
  return made;
}

/** Forgets an EVM a run was thrown out of: the next run on that project and network gets a new one. */
function dropRuntime(projectId: string, network: string, made: Promise<Runtime>): void {
  const key = `${projectId}\n${network}`;
  if (runtimes.get(key) === made) runtimes.delete(key);
}

async function createRuntime(network: string, chainId: number, models: (network: string) => readonly ModelledContract[]): Promise<Runtime> {
  const common = createCustomCommon({ chainId, name: network }, Mainnet, { hardfork: Hardfork.Prague });
  const state = new LedgerStateManager(genesisCode(models));
  const rt = { frames: [] as Message[], state } as unknown as Runtime;
  const customPrecompiles = models(network).map((model) => ({
    address: createAddressFromString(model.address),
    function: (input: PrecompileInput) => runModel(rt, model, input),
  }));
  // BLOCKHASH reads the sandbox's block hashes (the opcode itself answers zero outside the last 256 blocks).
  const blockchain = {
    getBlock: async (n: number) => ({ hash: () => hexToBytes(blockHashOf(network, n)) }),
    putBlock: async () => {},
    shallowCopy() {
      return blockchain;
    },
  };
  // At each pause, the run's time budget (evmBudget.ts): spent, it throws out of every frame, and runEvm undoes the run.
  const atPause = () => rt.run?.budget?.check();
  rt.evm = await createEVM({ common, stateManager: state, blockchain, ...yieldingWork(common, customPrecompiles, atPause) });
  rt.evm.events!.on("beforeMessage", (message: Message) => void rt.frames.push(message));
  rt.evm.events!.on("afterMessage", (result: EVMResult) => {
    const frame = rt.frames.pop();
    if (frame && rt.run) rt.run.failure = followFailure(rt.run.failure, frame, result);
  });
  return rt;
}

/**
 * The failure after one more frame ended. A frame that fails with the revert data of the frame it called (Solidity
 * passes a failed call's data up) keeps that frame as the origin; a frame that succeeds after a deeper failure
 * caught it; any other failure starts here.
 */
function followFailure(prior: FrameFailure | undefined, frame: Message, result: EVMResult): FrameFailure | undefined {
  const failed = result.execResult.exceptionError;
  if (!failed) return prior && prior.atDepth > frame.depth ? undefined : prior;
  const data = asHex(result.execResult.returnValue);
  if (prior && prior.atDepth === frame.depth + 1 && prior.origin.data === data) return { origin: prior.origin, atDepth: frame.depth };
  const address = (frame.to ?? result.createdAddress)?.toString() ?? "0x0000000000000000000000000000000000000000";
  const reason = failed.error === EVMError.errorMessages.REVERT ? revertReason(data) : undefined;
  return { origin: { depth: frame.depth, address: address as `0x${string}`, error: failed.error, data, ...(reason ? { reason } : {}) }, atDepth: frame.depth };
}

const revert = (gasUsed: bigint, data: Hex): ExecResult => ({
  executionGasUsed: gasUsed,
  returnValue: hexToBytes(data),
  exceptionError: new EVMError(EVMError.errorMessages.REVERT),
});

async function runModel(rt: Runtime, model: ModelledContract, input: PrecompileInput): Promise<ExecResult> {
  const frame = rt.frames.at(-1);
  const run = rt.run;
  if (!frame || !run) return revert(0n, "0x");
  if (input.gasLimit < model.gas)
    return { executionGasUsed: input.gasLimit, returnValue: new Uint8Array(), exceptionError: new EVMError(EVMError.errorMessages.OUT_OF_GAS) };
  const logs: ExecLog[] = [];
  // A model writes through the journaled transaction, and its frame's checkpoint is already open: a revert
  // below undoes its writes with the frame's.
  const mark = run.store.savepoint();
  try {
    const returned = await model.call({
      store: run.store,
      clock: run.ctx.clock,
      network: run.ctx.network,
      chainId: run.ctx.chainId,
      caller: frame.caller.toString() as `0x${string}`,
      value: frame.value,
      data: bytesToHex(input.data) as Hex,
      isStatic: frame.isStatic,
      emit: (topics, data) => void logs.push([hexToBytes(model.address), topics.map((t) => hexToBytes(t)), hexToBytes(data)]),
    });
    return { executionGasUsed: model.gas, returnValue: hexToBytes(returned), logs };
  } catch (error) {
    mark();
    return revert(model.gas, error instanceof ModelledRevert ? error.data : "0x");
  }
}

const asHex = (bytes: Uint8Array) => bytesToHex(bytes) as Hex;

/**
 * Runs one call or creation on the project's ledger. With `commit`, what it did stays in the request's
 * transaction (the caller records the transaction and charges its gas); without, everything is undone (eth_call,
 * eth_estimateGas). A failed run leaves nothing behind but the sender's nonce, as a mined revert does.
 *
 * Under a time budget (`withinEvmBudget` on the request's transaction, evmBudget.ts) a run that finds it spent at a
 * pause rejects with EvmTimeout, having changed nothing: its writes are undone, the queue moves on, and its EVM is
 * dropped (a run thrown out of mid-frame leaves the library's journal and transient storage half way).
 */
export function runEvm(
  ctx: EvmRunContext,
  req: EvmRunRequest,
  models: (network: string) => readonly ModelledContract[],
  options: { commit: boolean },
): Promise<EvmOutcome> {
  const budget = evmBudgetOf(ctx.store);
  return enqueue(ctx.store.projectId, async () => {
    const made = runtimeOf(ctx.store.projectId, ctx.network, ctx.chainId, models);
    const rt = await made;
    const store = new JournaledTx(ctx.store);
    rt.state.bind(store, ctx.network);
    rt.frames.length = 0;
    rt.run = { ctx, store, logs: [], ...(budget ? { budget } : {}) };
    rt.evm.journal.cleanJournal();
    const undoRun = store.savepoint();
    store.checkpoint();
    let kept = false;
    let finished = false;
    try {
      const outcome = await execute(rt, ctx, req);
      finished = true;
      kept = options.commit;
      return outcome;
    } finally {
      // A run that threw (out of time, or a defect; never a revert: those are outcomes) leaves nothing behind. It
      // may have left frames' checkpoints open, so everything since the run's start is undone, not the innermost.
      if (kept) store.commit();
      else if (finished) store.revert();
      else undoRun();
      rt.run = undefined;
      if (!finished) dropRuntime(ctx.store.projectId, ctx.network, made);
    }
  });
}

async function execute(rt: Runtime, ctx: EvmRunContext, req: EvmRunRequest): Promise<EvmOutcome> {
  const data = hexToBytes(req.data);
  const creation = req.to === null;
  const intrinsic = intrinsicGas(data, creation);
  if (req.gasLimit < intrinsic) return { success: false, returnValue: "0x", gasUsed: req.gasLimit, logs: [], error: "intrinsic gas too low" };
  const caller = createAddressFromString(req.from);
  if (req.nonce !== undefined) {
    // runCall counts the nonce up and derives a creation's address from the one before.
    await rt.state.modifyAccountFields(caller, { nonce: BigInt(req.nonce) });
  }
  const to: Address | undefined = req.to ? createAddressFromString(req.to) : undefined;
  // EIP-2929: the sender and the recipient are warm from the start, as are the precompiles.
  rt.evm.journal.addAlwaysWarmAddress(caller.toString());
  if (to) rt.evm.journal.addAlwaysWarmAddress(to.toString());
  const block = {
    header: {
      number: BigInt(ctx.block),
      coinbase: createAddressFromString(BLOCK_COINBASE),
      timestamp: BigInt(Math.floor(blockTimestampOf(ctx.network, ctx.block) / 1000)),
      difficulty: 0n,
      prevRandao: hexToBytes(prevRandaoOf(ctx.network, ctx.block)),
      gasLimit: BLOCK_GAS_LIMIT,
      baseFeePerGas: GAS_PRICE_WEI,
      getBlobGasPrice: () => 1n,
    },
  };
  let result: EVMResult;
  try {
    result = await rt.evm.runCall({
      caller,
      origin: caller,
      ...(to ? { to } : {}),
      value: req.value,
      data,
      gasLimit: req.gasLimit - intrinsic,
      gasPrice: GAS_PRICE_WEI,
      block,
      ...(req.internal ? { skipNonceIncrement: true } : {}),
      ...(req.isStatic ? { isStatic: true } : {}),
    });
  } catch (error) {
    // The library throws some failures instead of returning them (a value the caller does not hold): an outcome too.
    if (error instanceof EVMError) return { success: false, returnValue: "0x", gasUsed: req.gasLimit, logs: [], error: error.error };
    throw error;
  }
  const exec = result.execResult;
  let gasUsed = intrinsic + exec.executionGasUsed;
  // EIP-3529: the refund is at most a fifth of the gas used.
  const refund = exec.gasRefund ?? 0n;
  gasUsed -= refund < gasUsed / 5n ? refund : gasUsed / 5n;
  const success = exec.exceptionError === undefined;
  return {
    success,
    returnValue: asHex(exec.returnValue),
    gasUsed,
    logs: success
      ? (exec.logs ?? []).map(([address, topics, data]) => ({ address: asHex(address) as `0x${string}`, topics: topics.map(asHex), data: asHex(data) }))
      : [],
    ...(success && result.createdAddress ? { createdAddress: result.createdAddress.toString() as `0x${string}` } : {}),
    ...(success ? {} : { error: exec.exceptionError!.error }),
    ...(!success && rt.run?.failure ? { revert: rt.run.failure.origin } : {}),
  };
}
