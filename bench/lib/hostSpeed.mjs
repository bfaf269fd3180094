/**
 * How fast this host runs JavaScript right now: the EVM library's bare loop (`JUMPDEST PUSH1 0 JUMP`) run to a
 * 10M-gas cap, in seconds, the fastest of a few runs. The figures in docs/performance.md and docs/hardening.md
 * name it beside each measurement, since the shared machines these benches run on swing several-fold from one hour
 * to the next; two figures compare only at a similar loop time.
 */
import { createEVM } from "@ethereumjs/evm";

const LOOP = Uint8Array.from([0x5b, 0x60, 0x00, 0x56]);

export async function bareLoopSeconds(runs = 3) {
  const evm = await createEVM();
  let best = Number.POSITIVE_INFINITY;
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    await evm.runCode({ code: LOOP, gasLimit: 10_000_000n });
    best = Math.min(best, (performance.now() - started) / 1000);
  }
  return best;
}
