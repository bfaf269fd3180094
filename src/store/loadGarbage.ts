/**
 * A large data file is read as one string and parsed whole: the file's bytes and that string (as large as the file)
 * are garbage once the state is built, but V8 runs its next full collection only when the program allocates
 * enough again, which an idle sandbox does not. At 400,000 records that left ~400 MB of a ~950 MB RSS to garbage
 * for as long as the process ran. One full collection right after the load gives it back before the server
 * listens.
 */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

/** Files under this size leave too little garbage to be worth a full collection at start. */
const LARGE_FILE_BYTES = 32 * 1024 * 1024;

export function collectLoadGarbage(fileBytes: number): void {
  if (fileBytes < LARGE_FILE_BYTES) return;
  fullCollection()?.();
}

/** V8's collector, whether or not node was started with --expose-gc (the flag can be set once running). */
function fullCollection(): (() => void) | undefined {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (exposed) return exposed;
  try {
    setFlagsFromString("--expose-gc");
    return runInNewContext("gc") as () => void;
  } catch {
    return undefined; // a runtime that refuses the flag keeps its garbage until its next collection: slower to shrink, no less correct
  }
}
