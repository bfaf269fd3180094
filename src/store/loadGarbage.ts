/**
 * A large data file is read as one string and parsed whole: the file's bytes and that string (as large as the file)
 * are garbage once the state is built, but V8 runs its next full collection only when the program allocates
 * enough again, which an idle sandbox does not. At 400,000 records that left ~400 MB of a ~950 MB RSS to garbage
 * for as long as the process ran. A collection right after the load gives it back before the server listens.
 *
 * It is V8's memory-reducing collection, not a plain one, and it compacts the whole old generation: the strings
 * shared after the parse (shareStrings.ts) leave old-generation pages part-empty, and a plain full collection
 * frees their space but keeps the pages (at 400,000 records the old generation stayed at 397 MB for 221 MB of
 * objects, and the RSS did not move). The memory-reducing kind hands emptied pages back to the operating system,
 * but moves objects only off its sparsest pages (RSS after the load 514 -> 395 MB); compacting every page on that
 * one collection leaves the old generation as large as its objects (RSS 330 MB). The price is start-up CPU: at
 * 400,000 records this collection takes 2.8-3.3 s against 1.1-1.2 s for a plain one (2.3-2.8 s without the
 * compaction of every page). V8's memory reducer did part of this on its own, but only once the sandbox had been
 * idle for some 30 s, on the requests' thread. The flag is set back at once: compacting every full collection of
 * a running server costs CPU.
 */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

/** Files under this size leave too little garbage to be worth a full collection at start. */
const LARGE_FILE_BYTES = 32 * 1024 * 1024;

/** The options of V8's `gc()` that ask for its memory-reducing collection (what it runs on memory pressure). */
const REDUCE_MEMORY = { type: "major", execution: "sync", flavor: "last-resort" } as const;

type Collector = (options?: typeof REDUCE_MEMORY) => void;

/** Collects after `fileBytes` of text were parsed, when that is at least `worthBytes`; whether it did. */
export function collectLoadGarbage(fileBytes: number, worthBytes = LARGE_FILE_BYTES): boolean {
  if (fileBytes < worthBytes) return false;
  const collect = fullCollection();
  if (!collect) return false;
  setFlagsFromString("--compact-on-every-full-gc");
  try {
    collect(REDUCE_MEMORY);
  } finally {
    // Unless the process was started with it.
    if (!process.execArgv.some((flag) => /^--compact[-_]on[-_]every[-_]full[-_]gc$/.test(flag))) setFlagsFromString("--no-compact-on-every-full-gc");
  }
  return true;
}

/** V8's collector, whether or not node was started with --expose-gc (the flag can be set once running). */
function fullCollection(): Collector | undefined {
  const exposed = (globalThis as { gc?: Collector }).gc;
  if (exposed) return exposed;
  try {
    setFlagsFromString("--expose-gc");
    return runInNewContext("gc") as Collector;
  } catch {
    return undefined; // a runtime that refuses the flag keeps its garbage until its next collection: slower to shrink, no less correct
  }
}
