/**
 * What the precompile tests compare and count: a precompile's result as bytes, gas and error, and a spending budget
 * like the EVM run's (a pause every 16,384 units), counting its pauses instead of letting the event loop go.
 */
import type { ExecResult } from "@ethereumjs/evm";

/** A result as the comparison needs it: gas, output bytes as hex, error. */
export interface ResultShape {
  gas: bigint | undefined;
  out: string;
  error: string | undefined;
}

export const resultShape = (r: ExecResult): ResultShape => ({
  gas: r.executionGasUsed,
  out: Buffer.from(r.returnValue).toString("hex"),
  error: r.exceptionError?.error,
});

/** A budget like the run's: `spend` pauses (counted in `counts.pauses`) every 16,384 units. */
export function countingBudget() {
  let spent = 0;
  const counts = { pauses: 0 };
  const spend = (units: number) => {
    spent += units;
    if (spent < 16_384) return;
    spent = 0;
    counts.pauses++;
    return Promise.resolve();
  };
  return { spend, counts };
}
