/**
 * The EVM runs on the event loop, and an endless loop at a 30M gas limit held it ~3 s: every other request of the
 * process waited. A real node runs each call on its own thread; here the run lets the loop go every
 * JUMPS_PER_SLICE jumps instead. Any loop in EVM code goes through JUMP or JUMPI, so no run holds the loop longer
 * than that many jumps (a few milliseconds), while a token transfer (a few hundred jumps) never pauses.
 *
 * JUMP and JUMPI are replaced through the EVM's `customOpcodes` option by the library's own handlers (same gas,
 * same semantics) that count. The pause is counted, not timed, so where a run pauses does not depend on the
 * machine; the EVM queue (runtime.ts) keeps other EVM work out meanwhile, so a pause changes no result.
 */
import type { Common } from "@ethereumjs/common";
import { type EVMOpts, getOpcodesForHF, paramsEVM } from "@ethereumjs/evm";

type CustomOpcode = NonNullable<EVMOpts["customOpcodes"]>[number];
type OpHandler = ReturnType<typeof getOpcodesForHF>["handlers"] extends Map<number, infer H> ? H : never;

/** Jumps between two pauses: ~1–5 ms of a tight loop on this machine under load. */
const JUMPS_PER_SLICE = 16_384;

const JUMP = 0x56;
const JUMPI = 0x57;

const pause = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * JUMP and JUMPI that pause the run (a macrotask: timers, I/O and other requests run) every JUMPS_PER_SLICE jumps.
 *
 * @example await createEVM({ common, stateManager, customOpcodes: yieldingJumps(common) })
 */
export function yieldingJumps(common: Common): CustomOpcode[] {
  // The EVM's parameters (opcode fees) on the common, as createEVM sets them.
  common.updateParams(paramsEVM);
  const { handlers, opcodes } = getOpcodesForHF(common);
  let jumps = 0;
  const counting = (code: number): CustomOpcode => {
    const original = handlers.get(code)!;
    const info = opcodes.get(code)!;
    return {
      opcode: code,
      opcodeName: info.name,
      baseFee: info.fee,
      logicFunction: ((runState, c) => {
        original(runState, c);
        if (++jumps < JUMPS_PER_SLICE) return;
        jumps = 0;
        return pause();
      }) as OpHandler,
    };
  };
  return [counting(JUMP), counting(JUMPI)];
}
