/**
 * Collections a start with the data file's index left unparsed (dataIndex.ts): each stays the byte range of its
 * text in one version of the data file until something reads it. Parsing 400,000 records took most of a start
 * (~5 s of JSON.parse, 1.2 s of string sharing, ~3 s of collecting the parse's garbage); now each collection is
 * parsed after the server listens: by the command's warm-up, a piece of ~256 KB per turn of the event loop
 * (`warmingPieces`), or whole by the first read that comes before the warm-up reached it.
 *
 * An unparsed collection is a getter on the project's `data` object: every reader (a transaction, an index build, a
 * scan, `structuredClone`, JSON.stringify) gets the parsed records, and the getter puts them in its place as a plain
 * member, so nothing reads differently after the first time. The few that can do without the records (the snapshot
 * writer, which copies the bytes; the due and "any record" checks, which read the index's figures) ask `unparsed()`
 * first.
 */
import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { shareStrings } from "./shareStrings.js";

/**
 * One version of the data file, kept open while unparsed collections point into it: a later snapshot renames a new
 * file over the name, and the descriptor still reads the bytes these collections were written as.
 */
export class DataFileVersion {
  private fd: number | undefined;
  /** Unparsed collections reading from this version: at none the file is closed. */
  private readers = 0;

  constructor(
    readonly file: string,
    path = file,
  ) {
    this.fd = openSync(path, "r");
  }

  get size(): number {
    return fstatSync(this.descriptor).size;
  }

  private get descriptor(): number {
    // Only a collection of a state already replaced (and written over) could still point here: a store defect.
    if (this.fd === undefined) throw new Error(`${this.file}: an unparsed collection of a replaced state was read after its file version was closed`);
    return this.fd;
  }

  /** The bytes from `start` to `end`, read whole. */
  read(start: number, end: number): Buffer {
    const bytes = Buffer.allocUnsafe(end - start);
    let done = 0;
    while (done < bytes.length) {
      const n = readSync(this.descriptor, bytes, done, bytes.length - done, start + done);
      if (n === 0) throw new Error(`${this.file} ends before byte ${end}: it was changed in place`);
      done += n;
    }
    return bytes;
  }

  retain(): void {
    this.readers++;
  }

  release(): void {
    if (--this.readers <= 0) this.close();
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}

/** Where one collection's text lies in the data file, and what is known of its records without parsing them. */
export interface CollectionLayout {
  projectId: string;
  name: string;
  /** The byte range of the collection's text (`{` to `}`) in the data file. */
  start: number;
  end: number;
  /** How many records it holds. */
  count: number;
  /**
   * Where the text may be cut into pieces that parse on their own: byte offsets from `start`, ascending, each at
   * the `,` before a record. The snapshot writer cuts every ~256 KB, so a piece parses in a few milliseconds.
   */
  cuts: number[];
  /** The earliest due time of its records (null: none is due); absent when its declaration has no due time. */
  due?: number | null;
}

/** A collection left unparsed: its layout in one version of the data file. */
export interface Unparsed extends CollectionLayout {
  version: DataFileVersion;
  /** Set once the collection was parsed: a snapshot that copied it meanwhile leaves it be. */
  parsed?: true;
  /** The pieces parsed so far by the warm-up (`warmingPieces`), until the last one is. */
  progress?: Progress;
}

/** A collection parsed in part: its records up to piece `next`, and the last two, whose strings the next record shares. */
interface Progress {
  records: Record<string, unknown>;
  next: number;
  previous?: unknown;
  beforePrevious?: unknown;
}

type Data = Record<string, Record<string, unknown>>;

const unparsedOf = new WeakMap<Data, Map<string, Unparsed>>();

/** Puts an unparsed collection in `data` under its name (in the place of the member already there, keeping the order). */
export function defineUnparsed(data: Data, entry: Unparsed): void {
  let entries = unparsedOf.get(data);
  if (!entries) {
    entries = new Map();
    unparsedOf.set(data, entries);
  }
  entries.set(entry.name, entry);
  entry.version.retain();
  Object.defineProperty(data, entry.name, {
    configurable: true,
    enumerable: true,
    get: () => settle(data, entry.name, parse(entry)),
    set: (records: Record<string, unknown>) => settle(data, entry.name, records),
  });
}

/** The collection `name` of `data` while it is unparsed, or undefined once it was read (or never was unparsed). */
export function unparsed(data: Data, name: string): Unparsed | undefined {
  const entry = unparsedOf.get(data)?.get(name);
  // A member deleted or redefined since is no longer this entry's.
  return entry && Object.getOwnPropertyDescriptor(data, name)?.get !== undefined ? entry : undefined;
}

function settle(data: Data, name: string, records: Record<string, unknown>): Record<string, unknown> {
  const entry = unparsedOf.get(data)?.get(name);
  if (entry) {
    entry.parsed = true;
    unparsedOf.get(data)!.delete(name);
    entry.version.release();
  }
  Object.defineProperty(data, name, { value: records, writable: true, enumerable: true, configurable: true });
  return records;
}

/**
 * The records of an unparsed collection, parsed piece by piece from where the warm-up left it (each piece checked
 * as a whole-file load checks the collection, its strings shared as there).
 *
 * Piece by piece, no text as large as the collection is ever made, and most of a piece's garbage dies young: V8's
 * own memory reducer gives the pages back once the sandbox idles (at 400,000 records, RSS 483 MB just after the
 * warm-up, 436 MB some 10 s later, in pauses of 0.1-0.3 s). A compacting collection forced after the parse, as a
 * whole-file start runs one before it listens, held the event loop 1-3 s on a quiet machine and 7.6 s at load 5.
 */
function parse(entry: Unparsed): Record<string, unknown> {
  while (parseNextPiece(entry)) {
    // each piece is its own text
  }
  return entry.progress!.records;
}

/** Parses the next piece of `entry` into its progress; whether pieces are left after it. */
function parseNextPiece(entry: Unparsed): boolean {
  entry.progress ??= { records: {}, next: 0 };
  const progress = entry.progress;
  const at = progress.next;
  const last = at === entry.cuts.length;
  const where = `${entry.version.file}: the collection "${entry.name}" of project "${entry.projectId}"`;
  const text = entry.version.read(entry.start + (at === 0 ? 0 : entry.cuts[at - 1]!), last ? entry.end : entry.start + entry.cuts[at]!).toString("utf8");
  // The first piece opens with the collection's `{`, every other with the `,` before its first record, and the last
  // ends with the collection's `}`: between braces of its own, each piece is an object of records.
  if (text.charCodeAt(0) !== (at === 0 ? 0x7b : 0x2c)) throw new Error(`${where} cannot be read: its text does not begin where the index says`);
  let records: unknown;
  try {
    records = JSON.parse(`{${text.slice(1, last ? -1 : undefined)}}`);
  } catch (error) {
    throw new Error(`${where} cannot be read: ${(error as Error).message}`);
  }
  for (const id in records as Record<string, unknown>) {
    const record = (records as Record<string, unknown>)[id];
    shareStrings(record, progress.previous, id, progress.beforePrevious);
    progress.beforePrevious = progress.previous;
    progress.previous = record;
    // An own member, as JSON.parse makes it, even for the id `__proto__`.
    if (id === "__proto__") Object.defineProperty(progress.records, id, { value: record, writable: true, enumerable: true, configurable: true });
    else progress.records[id] = record;
  }
  progress.next++;
  return !last;
}

/**
 * The warm-up of the collections still unparsed in `datas`: one piece of one collection per call, the smallest
 * collections first (more of them are ready sooner; the largest, often webhook deliveries few requests read, last),
 * the last piece of each putting the parsed records in its place. Run a piece per turn after the ready line, it
 * spreads over many turns the parse a first read would otherwise do at once (~2 s holding the event loop for
 * 100,000 transfers). A piece of a collection that something read meanwhile (or replaced) does nothing.
 */
export function warmingPieces(datas: Iterable<Data>): Array<() => void> {
  const entries: Array<[Data, Unparsed]> = [];
  for (const data of datas) for (const entry of unparsedOf.get(data)?.values() ?? []) entries.push([data, entry]);
  entries.sort(([, a], [, b]) => a.end - a.start - (b.end - b.start));
  const pieces: Array<() => void> = [];
  for (const [data, entry] of entries) {
    let failed = false;
    const step = () => {
      if (failed || unparsed(data, entry.name) !== entry) return;
      try {
        if (!parseNextPiece(entry)) settle(data, entry.name, entry.progress!.records);
      } catch {
        // Text damaged since the index was written: the collection stays unparsed, and the request that reads it
        // gets the error naming the file, as without the warm-up.
        failed = true;
      }
    };
    for (let i = 0; i <= entry.cuts.length; i++) pieces.push(step);
  }
  return pieces;
}

/** After a snapshot copied an unparsed collection's bytes: it reads them from the new version from now on. */
export function moveUnparsed(entry: Unparsed, version: DataFileVersion, start: number, end: number): void {
  if (entry.parsed) return;
  version.retain();
  entry.version.release();
  entry.version = version;
  entry.start = start;
  entry.end = end;
}
