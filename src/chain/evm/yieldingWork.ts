/**
 * The EVM runs on the event loop, and an endless loop at a 30M gas limit held it ~3 s: every other request of the
 * process waited. A real node runs each call on its own thread; here the run lets the loop go every SLICE units of
 * work instead, a unit being a gas the code burnt. Gas is what bounds a run, and no opcode costs much more time per
 * gas than a tight loop's (~0.1–0.3 µs a gas in this EVM): a slice is a few milliseconds of any code.
 *
 * The gas is read where code can repeat or nest work: at JUMP and JUMPI (every loop goes through one) and after
 * each call or create returns (a straight line of calls into code without jumps loops as surely), as what the frame's
 * `gasLeft` dropped since the frame's last count. Between two counts runs at most one straight line of code (at most
 * the 49,152 bytes of init code). Counting a jump as one unit, as before, let a loop of 12 gas an iteration run
 * 16,384 iterations, 20–100 ms, between two pauses, and a loop whose body is a long straight line never paused.
 *
 * Precompiles spend the same budget, one unit per gas they charge, when they return; those whose single call ran
 * for seconds, MODEXP, the BN254 pairing check and BLS12-381's multi-scalar multiplications and pairing check, run in
 * pieces that spend into the budget as they go (modexpInPieces.ts, pairingInPieces.ts, blsInPieces.ts). The caller's
 * count after the call adds their gas again: a second count only pauses more often.
 *
 * The counting opcodes are the library's own handlers (same gas, same semantics) given back through the EVM's
 * `customOpcodes` option; the precompiles the library's own functions through `customPrecompiles`. The pause is
 * counted, not timed, so where a run pauses does not depend on the machine; the project's EVM queue (runtime.ts)
 * keeps other EVM work on that EVM out meanwhile, so a pause changes no result. A pause is also where a run under a
 * time budget (evmBudget.ts) reads the clock, through `atPause`, which may throw to abort the run.
 */
import type { Common } from "@ethereumjs/common";
import { type AddPrecompile, type EVMOpts, getActivePrecompiles, getOpcodesForHF, type PrecompileFunc, paramsEVM } from "@ethereumjs/evm";
import { createAddressFromString } from "@ethereumjs/util";
import { nextTurn } from "../../byTurns.js";
import { modexpInPieces, type Spend } from "./modexpInPieces.js";
import { blsPairingInPieces, g1MsmInPieces, g2MsmInPieces } from "./blsInPieces.js";
import { pairingInPieces } from "./pairingInPieces.js";

type CustomOpcode = Extract<NonNullable<EVMOpts["customOpcodes"]>[number], { logicFunction: unknown }>;
type OpHandler = ReturnType<typeof getOpcodesForHF>["handlers"] extends Map<number, infer H> ? H : never;
type RunState = Parameters<OpHandler>[0];

/** Units of work (gas) between two pauses: ~1.5–5 ms of a tight loop (1,365 iterations of 12 gas) on this machine. */
const SLICE = 16_384;

/** JUMP, JUMPI; CREATE, CALL, CALLCODE, DELEGATECALL, CREATE2, STATICCALL. */
const COUNTED = [0x56, 0x57, 0xf0, 0xf1, 0xf2, 0xf4, 0xf5, 0xfa];

/** The precompiles that spend as they go instead of after: MODEXP, the BN254 pairing check, BLS12-381's MSMs and pairing. */
const IN_PIECES: Record<string, typeof modexpInPieces> = {
  "0000000000000000000000000000000000000005": modexpInPieces,
  "0000000000000000000000000000000000000008": pairingInPieces,
  "000000000000000000000000000000000000000c": g1MsmInPieces,
  "000000000000000000000000000000000000000e": g2MsmInPieces,
  "000000000000000000000000000000000000000f": blsPairingInPieces,
};

/**
 * JUMP, JUMPI and the active precompiles, counting into one budget that pauses the run (a macrotask: timers, I/O
 * and other requests run) every SLICE units.
 *
 * @example await createEVM({ common, stateManager, ...yieldingWork(common, models) })
 */
export function yieldingWork(
  common: Common,
  /** Precompiles of the sandbox's own (modelled contracts): they replace a built-in at their address and are not counted. */
  own: readonly AddPrecompile[],
  /** Called before each pause; what it throws leaves the run (past every frame) instead of pausing. */
  atPause: () => void = () => {},
): { customOpcodes: CustomOpcode[]; customPrecompiles: AddPrecompile[] } {
  // The EVM's parameters (opcode fees) on the common, as createEVM sets them.
  common.updateParams(paramsEVM);
  const { handlers, opcodes, dynamicGasHandlers } = getOpcodesForHF(common);
  let spent = 0;
  const spend: Spend = (units) => {
    spent += units;
    if (spent < SLICE) return;
    spent = 0;
    atPause();
    return nextTurn();
  };
  /** Each frame's gasLeft at its last count: a frame's first count spends one unit, the next what it burnt since. */
  const counted = new WeakMap<RunState, bigint>();
  const spendBurnt = (runState: RunState) => {
    const before = counted.get(runState);
    counted.set(runState, runState.gasLeft);
    return spend(before === undefined || before <= runState.gasLeft ? 1 : Number(before - runState.gasLeft));
  };
  const counting = (code: number): CustomOpcode => {
    const original = handlers.get(code)!;
    const info = opcodes.get(code)!;
    const gasFunction = dynamicGasHandlers.get(code);
    return {
      opcode: code,
      opcodeName: info.name,
      baseFee: info.fee,
      ...(gasFunction ? { gasFunction } : {}),
      // A jump's handler returns at once and a call's is awaited: the jump stays synchronous unless it pauses.
      logicFunction: ((runState, c) => {
        const done = original(runState, c) as unknown;
        return done instanceof Promise ? done.then(() => spendBurnt(runState)) : spendBurnt(runState);
      }) as OpHandler,
    };
  };
  const ownAddresses = new Set(own.map((p) => p.address.toString().toLowerCase()));
  const builtIns: AddPrecompile[] = [];
  for (const [address, original] of getActivePrecompiles(common)) {
    if (!original || ownAddresses.has(`0x${address}`)) continue;
    const inPieces = IN_PIECES[address];
    const counted: PrecompileFunc = inPieces
      ? (input) => inPieces(input, original, spend)
      : async (input) => {
          const result = await original(input);
          // A precompile's gas is at most a 30M-gas call's: as a count it stays an exact integer.
          await spend(Number(result.executionGasUsed));
          return result;
        };
    builtIns.push({ address: createAddressFromString(`0x${address}`), function: counted });
  }
  return { customOpcodes: COUNTED.map(counting), customPrecompiles: [...own, ...builtIns] };
}
