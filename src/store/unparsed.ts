/**
 * Collections a start with the data file's index left unparsed (dataIndex.ts): each stays the byte range of its
 * text in one version of the data file until something reads it. Parsing 400,000 records took most of a start
 * (~5 s of JSON.parse, 1.2 s of string sharing, ~3 s of collecting the parse's garbage); now each collection costs
 * one parse of its own text, the first time it is read.
 *
 * An unparsed collection is a getter on the project's `data` object: every reader (a transaction, an index build, a
 * scan, `structuredClone`, JSON.stringify) gets the parsed records, and the getter puts them in its place as a plain
 * member, so nothing reads differently after the first time. The few that can do without the records (the snapshot
 * writer, which copies the bytes; the due and "any record" checks, which read the index's figures) ask `unparsed()`
 * first.
 */
import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { collectLoadGarbage } from "./loadGarbage.js";
import { shareLoadedStrings } from "./shareStrings.js";

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
  /** The earliest due time of its records (null: none is due); absent when its declaration has no due time. */
  due?: number | null;
}

/** A collection left unparsed: its layout in one version of the data file. */
export interface Unparsed extends CollectionLayout {
  version: DataFileVersion;
  /** Set once the collection was parsed: a snapshot that copied it meanwhile leaves it be. */
  parsed?: true;
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

/** The records of an unparsed collection, checked as a whole-file load checks them and with their strings shared. */
function parse(entry: Unparsed): Record<string, unknown> {
  const where = `${entry.version.file}: the collection "${entry.name}" of project "${entry.projectId}"`;
  let records: unknown;
  try {
    records = JSON.parse(entry.version.read(entry.start, entry.end).toString("utf8"));
  } catch (error) {
    throw new Error(`${where} cannot be read: ${(error as Error).message}`);
  }
  if (typeof records !== "object" || records === null || Array.isArray(records)) throw new Error(`${where} is not an object of records`);
  shareLoadedStrings([records as Record<string, unknown>]);
  collectOnceQuiet(entry.end - entry.start);
  return records as Record<string, unknown>;
}

/** How long after the last parse of a collection its garbage is collected: a burst of first reads pays for one. */
const QUIET_MS = 1000;
/**
 * Less than a whole-file start needs: parsed while requests run, a collection's objects end up among theirs, and
 * 100,000 accounts (30 MB of text) read this way held 1,177 B each of RSS without the collection (~590 B parsed at
 * start), for ~0.4 s of collection.
 */
const WORTH_COLLECTING_BYTES = 16 * 1024 * 1024;
let unparsedBytes = 0;
let collection: NodeJS.Timeout | undefined;

/**
 * A parse leaves its text and the copies of the strings it shared as garbage in the old generation, and V8 hands
 * those pages back only after a compacting collection (loadGarbage.ts): without it, 400,000 records read this way
 * held ~650 MB of RSS against ~250 MB after it. The collection runs once the first reads have been quiet for a
 * second, when enough was parsed to be worth it (as at a whole-file start, but after the server listens, and only for
 * what was read); it holds the event loop while it runs, ~1-3 s for a heap of 250 MB on these machines.
 */
function collectOnceQuiet(bytes: number): void {
  unparsedBytes += bytes;
  if (collection) clearTimeout(collection);
  collection = setTimeout(() => {
    collection = undefined;
    // Below the size worth a collection, the bytes count towards the next burst.
    if (collectLoadGarbage(unparsedBytes, WORTH_COLLECTING_BYTES)) unparsedBytes = 0;
  }, QUIET_MS).unref();
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
