/**
 * The EVM runs on the event loop, and an endless loop at a 30M gas limit held it ~3 s: every other request of the
 * process waited. A real node runs each call on its own thread; here the run lets the loop go every SLICE units of
 * work instead. Any loop in EVM code goes through JUMP or JUMPI, so no run holds the loop longer than that many
 * jumps (a few milliseconds), while a token transfer (a few hundred jumps) never pauses.
 *
 * Precompiles spend the same budget, one unit per gas they charge: in JavaScript they cost far more time per gas
 * than opcodes, so a loop that calls one a few times per jump must pause by their gas, not by its few jumps. Most
 * calls are short and counted after they return; those whose single call ran for seconds, MODEXP, the BN254
 * pairing check and BLS12-381's multi-scalar multiplications and pairing check, run in pieces that spend into the
 * budget as they go (modexpInPieces.ts, pairingInPieces.ts, blsInPieces.ts).
 *
 * JUMP and JUMPI are replaced through the EVM's `customOpcodes` option by the library's own handlers (same gas,
 * same semantics) that count; the precompiles through `customPrecompiles` by the library's own functions, counted
 * after they return. The pause is counted, not timed, so where a run pauses does not depend on the machine; the
 * project's EVM queue (runtime.ts) keeps other EVM work on that EVM out meanwhile, so a pause changes no result.
 */
import type { Common } from "@ethereumjs/common";
import { type AddPrecompile, type EVMOpts, getActivePrecompiles, getOpcodesForHF, type PrecompileFunc, paramsEVM } from "@ethereumjs/evm";
import { createAddressFromString } from "@ethereumjs/util";
import { modexpInPieces, type Spend } from "./modexpInPieces.js";
import { blsPairingInPieces, g1MsmInPieces, g2MsmInPieces } from "./blsInPieces.js";
import { pairingInPieces } from "./pairingInPieces.js";

type CustomOpcode = NonNullable<EVMOpts["customOpcodes"]>[number];
type OpHandler = ReturnType<typeof getOpcodesForHF>["handlers"] extends Map<number, infer H> ? H : never;

/** Units of work between two pauses (a jump is one): ~1–5 ms of a tight loop on this machine under load. */
const SLICE = 16_384;

const JUMP = 0x56;
const JUMPI = 0x57;

/** The precompiles that spend as they go instead of after: MODEXP, the BN254 pairing check, BLS12-381's MSMs and pairing. */
const IN_PIECES: Record<string, typeof modexpInPieces> = {
  "0000000000000000000000000000000000000005": modexpInPieces,
  "0000000000000000000000000000000000000008": pairingInPieces,
  "000000000000000000000000000000000000000c": g1MsmInPieces,
  "000000000000000000000000000000000000000e": g2MsmInPieces,
  "000000000000000000000000000000000000000f": blsPairingInPieces,
};

const pause = () => new Promise<void>((resolve) => setImmediate(resolve));

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
): { customOpcodes: CustomOpcode[]; customPrecompiles: AddPrecompile[] } {
  // The EVM's parameters (opcode fees) on the common, as createEVM sets them.
  common.updateParams(paramsEVM);
  const { handlers, opcodes } = getOpcodesForHF(common);
  let spent = 0;
  const spend: Spend = (units) => {
    spent += units;
    if (spent < SLICE) return;
    spent = 0;
    return pause();
  };
  const counting = (code: number): CustomOpcode => {
    const original = handlers.get(code)!;
    const info = opcodes.get(code)!;
    return {
      opcode: code,
      opcodeName: info.name,
      baseFee: info.fee,
      logicFunction: ((runState, c) => {
        original(runState, c);
        return spend(1);
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
  return { customOpcodes: [counting(JUMP), counting(JUMPI)], customPrecompiles: [...own, ...builtIns] };
}
