/**
 * The index beside a data file (`FILE.index`), written after each snapshot: which version of the data file it
 * describes (the snapshot id the document carries, and the file's size), and for every collection of every project
 * the byte range of its text, where that text may be cut into pieces that parse on their own, its record count and
 * its earliest due time. With it, a start reads only the text
 * outside the collections (the state's fields, the projects' ids, keys and settings: kilobytes) and leaves each
 * collection unparsed until it is read (unparsed.ts).
 *
 * The data file stays the whole state on its own: the index is written after the data file is renamed into place,
 * so a crash between the two leaves the old index, whose snapshot id no longer matches, and the next start parses
 * the whole file as it did before the index existed. So does a start with no index, one that is not of this format,
 * or one whose ranges do not hold a collection's text.
 */
import { readFileSync } from "node:fs";
import { rename, writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { type CollectionLayout, DataFileVersion } from "./unparsed.js";

const INDEX_FORMAT = "cdp-sandbox-data-index";
/** 2: each collection's cuts (version 1, without them, is not read: the next start parses the whole file once). */
const INDEX_VERSION = 2;

interface DataIndex {
  snapshotId: string;
  size: number;
  collections: CollectionLayout[];
}

export const indexFileOf = (file: string): string => `${file}.index`;

/** Writes the index of the data file version just renamed into place (a temporary file renamed over the last index). */
export async function writeDataIndex(file: string, index: DataIndex): Promise<void> {
  const target = indexFileOf(file);
  const temporary = join(dirname(target), `.${basename(target)}.tmp`);
  const collections = index.collections.map((c) => [c.projectId, c.name, c.start, c.end, c.count, c.cuts, ...(c.due === undefined ? [] : [c.due])]);
  // Not fsynced: an index lost or torn by a crash is refused at the next start, which then parses the whole file.
  await writeFile(temporary, JSON.stringify({ format: INDEX_FORMAT, version: INDEX_VERSION, snapshotId: index.snapshotId, size: index.size, collections }), {
    mode: 0o600,
  });
  await rename(temporary, target);
}

/** What a start with a matching index reads: the document with every collection `{}`, and where the collections lie. */
export interface IndexedDocument {
  document: unknown;
  version: DataFileVersion;
  collections: CollectionLayout[];
}

/**
 * The data file read through its index, or undefined when there is no index or it does not describe this file
 * exactly (the caller then parses the whole file). The file version stays open for the unparsed collections.
 */
export function readWithIndex(file: string): IndexedDocument | undefined {
  const index = readIndex(indexFileOf(file));
  if (!index) return undefined;
  let version: DataFileVersion;
  try {
    version = new DataFileVersion(file);
  } catch {
    return undefined;
  }
  try {
    const document = index.size === version.size ? outsideCollections(version, index) : undefined;
    if (document !== undefined) return { document, version, collections: index.collections };
  } catch {
    // Anything odd in the file: the whole parse reports it with the data file's own message.
  }
  version.close();
  return undefined;
}

/** The document with each collection's text replaced by `{}`, or undefined when the ranges or the id do not match. */
function outsideCollections(version: DataFileVersion, index: DataIndex): unknown {
  const parts: string[] = [];
  let at = 0;
  for (const { start, end } of index.collections) {
    if (version.read(start, start + 1)[0] !== 0x7b || version.read(end - 1, end)[0] !== 0x7d) return undefined; // `{` … `}`
    parts.push(version.read(at, start).toString("utf8"), "{}");
    at = end;
  }
  parts.push(version.read(at, index.size).toString("utf8"));
  const document = JSON.parse(parts.join("")) as unknown;
  const id = typeof document === "object" && document !== null ? (document as { snapshotId?: unknown }).snapshotId : undefined;
  return id === index.snapshotId ? document : undefined;
}

const isCount = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;

/** Offsets inside a text of `length` bytes, after its first and before its last byte, ascending. */
function areCuts(cuts: unknown, length: number): cuts is number[] {
  if (!Array.isArray(cuts)) return false;
  let after = 0;
  for (const cut of cuts) {
    if (!isCount(cut) || cut <= after || cut >= length - 1) return false;
    after = cut;
  }
  return true;
}

/** The index file's content when it is one of this format with ranges in order, else undefined. */
function readIndex(path: string): DataIndex | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, "utf8"));
  } catch {
    return undefined; // none, or torn
  }
  if (typeof raw !== "object" || raw === null) return undefined;
  const { format, version, snapshotId, size, collections } = raw as Record<string, unknown>;
  if (format !== INDEX_FORMAT || version !== INDEX_VERSION || typeof snapshotId !== "string" || snapshotId === "" || !isCount(size)) return undefined;
  if (!Array.isArray(collections)) return undefined;
  const layout: CollectionLayout[] = [];
  let after = 0;
  for (const entry of collections as unknown[]) {
    if (!Array.isArray(entry) || entry.length < 6 || entry.length > 7) return undefined;
    const [projectId, name, start, end, count, cuts, due] = entry as unknown[];
    if (typeof projectId !== "string" || typeof name !== "string" || !isCount(start) || !isCount(end) || !isCount(count)) return undefined;
    if (start < after || end < start + 2 || end > size || !areCuts(cuts, end - start)) return undefined;
    if (entry.length === 7 && due !== null && typeof due !== "number") return undefined;
    layout.push({ projectId, name, start, end, count, cuts, ...(entry.length === 7 ? { due: due as number | null } : {}) });
    after = end;
  }
  return { snapshotId, size, collections: layout };
}
