/**
 * How many turns the event loop made while `work` ran: counted, not timed, so a test of "the work lets the loop go"
 * holds however busy the machine is (the sandbox must run in the test's process).
 */
export async function turnsWhile<T>(work: () => Promise<T>): Promise<{ result: T; turns: number }> {
  let turns = 0;
  let running = true;
  const tick = () => {
    if (!running) return;
    turns++;
    setImmediate(tick);
  };
  setImmediate(tick);
  try {
    return { result: await work(), turns };
  } finally {
    running = false;
  }
}
