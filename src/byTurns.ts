/**
 * Work done after the ready line without holding the event loop: one piece per turn, so a request that arrives
 * meanwhile waits for one piece at most, never for the whole warm-up.
 */

/** A warm-up in progress: `stop` drops the pieces not run yet; `done` settles when all have run or it stops. */
export interface ByTurns {
  done: Promise<void>;
  stop(): void;
}

/** Runs `pieces` in order, each on a turn of the event loop of its own (a macrotask: timers, I/O and requests between). */
export function runByTurns(pieces: ReadonlyArray<() => unknown>): ByTurns {
  let pending: NodeJS.Immediate | undefined;
  let finish = () => {};
  const done = new Promise<void>((resolve) => {
    finish = resolve;
  });
  const next = (at: number) => {
    if (at === pieces.length) return finish();
    pending = setImmediate(() => {
      pieces[at]!();
      next(at + 1);
    });
  };
  next(0);
  return {
    done,
    stop: () => {
      clearImmediate(pending);
      finish();
    },
  };
}

/** Resolves on the next turn of the event loop (a macrotask): timers, I/O and other requests run first. */
export const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));
