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
 *
 * The writer knows where each collection's text begins and ends as it writes it: the index written after the
 * rename (dataIndex.ts) records those ranges, so the next start can leave the collections unparsed. A collection
 * still unparsed when a snapshot is written is copied byte for byte from the file version it was read from.
 */
import { open, readFile, rename } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import type { Adapter } from "lowdb";
import { nextTurn } from "../byTurns.js";
import { declaredDueAt } from "./collections.js";
import { writeDataIndex } from "./dataIndex.js";
import { type CollectionLayout, DataFileVersion, moveUnparsed, type Unparsed, unparsed } from "./unparsed.js";

/** Levels of objects taken apart (state, projects, a project, its data, a collection); deeper values are one piece. */
const EXPAND_DEPTH = 5;
/** How long serializing runs before it lets other work in. */
const SLICE_MS = 8;
const FLUSH_CHARS = 1 << 20;
/** How much of a collection's text lies between two cuts: a piece parses in a few milliseconds. */
const PIECE_CHARS = 1 << 18;
const COPY_BYTES = 1 << 20;

/**
 * Where a collection's text begins or ends (its records counted, its earliest due time found on the way), or where
 * it may be cut into pieces that parse on their own.
 */
interface Mark {
  mark: "start" | "cut" | "end";
  projectId: string;
  name: string;
  count?: number;
  due?: number | null;
}
/** A collection still unparsed: its bytes are copied from the file version it was read from. */
interface Copy {
  copy: Unparsed;
}
type Piece = string | Mark | Copy;

/** The JSON text of `value` in pieces: objects down to `depth` levels member by member, anything deeper whole. */
export function* jsonPieces(value: unknown, depth = EXPAND_DEPTH): Generator<string> {
  for (const piece of layoutPieces(value, depth, [])) if (typeof piece === "string") yield piece;
}

/**
 * The pieces of `jsonPieces`, with a project's collections (at `projects.<id>.data.<name>`) marked where they begin
 * and end, and those still unparsed given as their bytes to copy.
 */
function* layoutPieces(value: unknown, depth: number, path: readonly string[]): Generator<Piece> {
  if (depth > 0 && isPlainObject(value)) {
    const collections = path.length === 3 && path[0] === "projects" && path[2] === "data" ? (value as Record<string, Record<string, unknown>>) : undefined;
    yield "{";
    let first = true;
    for (const key of Object.keys(value)) {
      const copy = collections && unparsed(collections, key);
      if (copy) {
        yield `${first ? "" : ","}${JSON.stringify(key)}:`;
        first = false;
        yield { copy };
        continue;
      }
      const member = value[key];
      // Members JSON.stringify leaves out of an object.
      if (member === undefined || typeof member === "function" || typeof member === "symbol") continue;
      yield `${first ? "" : ","}${JSON.stringify(key)}:`;
      first = false;
      if (collections && depth === 2 && isPlainObject(member)) yield* collectionPieces(member, path[1]!, key);
      else yield* layoutPieces(member, depth - 1, path.length < 3 ? [...path, key] : path);
    }
    yield "}";
    return;
  }
  yield JSON.stringify(value) ?? "null";
}

/** A collection's records one piece each, between its marks. */
function* collectionPieces(records: Record<string, unknown>, projectId: string, name: string): Generator<Piece> {
  const dueAt = declaredDueAt(name);
  let count = 0;
  let due: number | null = null;
  let sinceCut = 0;
  yield { mark: "start", projectId, name };
  yield "{";
  for (const id of Object.keys(records)) {
    const record = records[id];
    if (record === undefined || typeof record === "function" || typeof record === "symbol") continue;
    if (sinceCut >= PIECE_CHARS) {
      yield { mark: "cut", projectId, name };
      sinceCut = 0;
    }
    const key = `${count === 0 ? "" : ","}${JSON.stringify(id)}:`;
    const text = JSON.stringify(record) ?? "null";
    yield key;
    yield text;
    sinceCut += key.length + text.length;
    count++;
    const at = dueAt?.(record);
    if (at !== undefined && (due === null || at < due)) due = at;
  }
  yield "}";
  yield { mark: "end", projectId, name, count, ...(dueAt ? { due } : {}) };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) && typeof (value as { toJSON?: unknown }).toJSON !== "function";
}

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

  /** The file version the unparsed collections read from (a start through the index), until a write moves them. */
  private version: DataFileVersion | undefined;

  /** After a start through the data file's index: the version its unparsed collections read from. */
  readFrom(version: DataFileVersion): void {
    this.version = version;
  }

  /**
   * Writes `data` in place of the file. When it carries a `snapshotId` (the store's state), the index of the new
   * file is written after it, and the collections still unparsed (copied byte for byte, never parsed) read from
   * the new file from then on.
   */
  async write(data: T): Promise<void> {
    const temporary = join(dirname(this.file), `.${basename(this.file)}.tmp`);
    const layout: CollectionLayout[] = [];
    const copied: Array<[Unparsed, number, number]> = [];
    // Owner only: the state holds private keys and API key secrets.
    const handle = await open(temporary, "w", 0o600);
    let written: DataFileVersion | undefined;
    let offset = 0;
    // The versions copied from stay open until the write is done, even if a read parses their last collection.
    const copiedFrom = new Set<DataFileVersion>();
    try {
      let pending: string[] = [];
      let size = 0;
      let sliceStarted = performance.now();
      const flush = async () => {
        const bytes = Buffer.from(pending.join(""));
        await handle.writeFile(bytes);
        offset += bytes.length;
        pending = [];
        size = 0;
      };
      const slice = async () => {
        if (performance.now() - sliceStarted >= SLICE_MS) {
          await nextTurn();
          sliceStarted = performance.now();
        }
      };
      let started = 0;
      let cuts: number[] = [];
      for (const piece of layoutPieces(data, EXPAND_DEPTH, [])) {
        if (typeof piece === "string") {
          pending.push(piece);
          size += piece.length;
          if (size >= FLUSH_CHARS) await flush();
        } else if ("mark" in piece) {
          await flush();
          if (piece.mark === "start") {
            started = offset;
            cuts = [];
          } else if (piece.mark === "cut") cuts.push(offset - started);
          else
            layout.push({
              projectId: piece.projectId,
              name: piece.name,
              start: started,
              end: offset,
              count: piece.count!,
              cuts,
              ...(piece.due === undefined ? {} : { due: piece.due }),
            });
        } else {
          await flush();
          const { copy } = piece;
          if (!copiedFrom.has(copy.version)) {
            copy.version.retain();
            copiedFrom.add(copy.version);
          }
          const start = offset;
          for (let at = copy.start; at < copy.end; at += COPY_BYTES) {
            const bytes = copy.version.read(at, Math.min(copy.end, at + COPY_BYTES));
            await handle.writeFile(bytes);
            offset += bytes.length;
            await slice();
          }
          layout.push({
            projectId: copy.projectId,
            name: copy.name,
            start,
            end: offset,
            count: copy.count,
            cuts: copy.cuts,
            ...(copy.due === undefined ? {} : { due: copy.due }),
          });
          copied.push([copy, start, offset]);
        }
        await slice();
      }
      await flush();
      await handle.sync();
      // The new file's bytes, for the collections copied into it: opened before the rename, so it is this version.
      if (copied.length > 0) written = new DataFileVersion(this.file, temporary);
    } finally {
      await handle.close();
      for (const version of copiedFrom) version.release();
    }
    try {
      await rename(temporary, this.file);
    } catch (error) {
      written?.close();
      throw error;
    }
    for (const [entry, start, end] of copied) moveUnparsed(entry, written!, start, end);
    // Collections of a state replaced since the last write may still point at the old version: they can no longer
    // be read (nothing reaches them), and the old file's space is given back.
    this.version?.close();
    this.version = written;
    const snapshotId = (data as { snapshotId?: unknown }).snapshotId;
    if (typeof snapshotId === "string") await writeDataIndex(this.file, { snapshotId, size: offset, collections: layout });
  }
}
