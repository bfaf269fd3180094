/**
 * The lowdb adapter behind `--data FILE`: the snapshot as one JSON document,
 * written without stalling the server. lowdb's own JSONFile adapter builds the
 * whole document as one string in one synchronous `JSON.stringify`: about 3 s
 * on this machine for 400,000 records, during which no request is answered.
 * This adapter serializes record by record, hands the text to the file in
 * megabyte pieces, and yields to the event loop every few milliseconds, so
 * reads go on while a snapshot is written (the store holds commits back until
 * it is done, so the document is one consistent state). The text is exactly
 * `JSON.stringify(data)`; as with lowdb's writer, it goes to a temporary file
 * that is fsynced and then renamed over the snapshot, so a crash leaves the old
 * snapshot or the new one, never half of one.
 */
import { open, readFile, rename } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import type { Adapter } from "lowdb";

/** Levels of objects taken apart (state, projects, a project, its data, a collection); deeper values are one piece. */
const EXPAND_DEPTH = 5;
/** How long serializing runs before it lets other work in. */
const SLICE_MS = 8;
const FLUSH_CHARS = 1 << 20;

/** The JSON text of `value` in pieces: objects down to `depth` levels member by member, anything deeper whole. */
export function* jsonPieces(value: unknown, depth = EXPAND_DEPTH): Generator<string> {
  if (depth > 0 && isPlainObject(value)) {
    yield "{";
    let first = true;
    for (const key of Object.keys(value)) {
      const member = value[key];
      // Members JSON.stringify leaves out of an object.
      if (member === undefined || typeof member === "function" || typeof member === "symbol") continue;
      yield `${first ? "" : ","}${JSON.stringify(key)}:`;
      first = false;
      yield* jsonPieces(member, depth - 1);
    }
    yield "}";
    return;
  }
  yield JSON.stringify(value) ?? "null";
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) && typeof (value as { toJSON?: unknown }).toJSON !== "function";
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

export class SnapshotFile<T> implements Adapter<T> {
  /** The length of the text the last read parsed (0 before a read, or when there was no file). */
  bytesRead = 0;

  constructor(private readonly file: string) {}

  async read(): Promise<T | null> {
    return ((await this.readDocument()) ?? null) as T | null;
  }

  /**
   * The parsed document, unchecked (a JSON `null` is returned as null); undefined when the file does not exist or
   * is empty, which starts a new data file.
   */
  async readDocument(): Promise<unknown> {
    let text: string;
    try {
      text = await readFile(this.file, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw new Error(`${this.file} cannot be read: ${(error as Error).message}`);
    }
    if (text.trim() === "") return undefined;
    this.bytesRead = text.length;
    try {
      return JSON.parse(text) as unknown;
    } catch (error) {
      throw new Error(`${this.file} is not a cdp-sandbox data file: it is not valid JSON (${(error as Error).message}). Nothing was written to it.`);
    }
  }

  async write(data: T): Promise<void> {
    const temporary = join(dirname(this.file), `.${basename(this.file)}.tmp`);
    // Owner only: the state holds private keys and API key secrets.
    const handle = await open(temporary, "w", 0o600);
    try {
      let pending: string[] = [];
      let size = 0;
      let sliceStarted = performance.now();
      for (const piece of jsonPieces(data)) {
        pending.push(piece);
        size += piece.length;
        if (size >= FLUSH_CHARS) {
          await handle.writeFile(pending.join(""));
          pending = [];
          size = 0;
        }
        if (performance.now() - sliceStarted >= SLICE_MS) {
          await nextTurn();
          sliceStarted = performance.now();
        }
      }
      await handle.writeFile(pending.join(""));
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, this.file);
  }
}
