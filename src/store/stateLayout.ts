/**
 * The layout of the data file's snapshot: one JSON document, with each record on a line of its own that begins
 * with a tab (whitespace to JSON, so the file is the same JSON value to any reader). A start reads the file a
 * piece at a time and parses each record from its line, and the document around the records (identities, keys,
 * settings: a few kilobytes) once. Parsing the whole file as one string held that string (the size of the file)
 * and the file's bytes until the next full garbage collection, which an idle server may not run for a long time:
 * at 400,000 records that was ~400 MB of the process's memory holding nothing.
 *
 * A file of the older layout (records inside the document, no marker first) is parsed whole, as before, and
 * rewritten in this layout at the next snapshot.
 */
import { closeSync, openSync, readFileSync, readSync } from "node:fs";
import { checkDataDocument } from "./dataFile.js";
import type { SandboxState } from "./state.js";

/** How every snapshot of this layout begins: the marker and version, in that order. */
const LAYOUT_START = '{"format":"cdp-sandbox-state","version":1';
/** Stands in the document for the records of a collection, which the lines after it hold. */
const RECORDS_HERE = "\u0000records";
const TAB = 9;
const NEWLINE = 10;
const COMMA = 44;
const QUOTE = 34;
const BACKSLASH = 92;
const COLON = 58;
/** The file is read in pieces of this size; a line longer than a piece is carried over whole. */
const PIECE_BYTES = 8 << 20;

/** Members JSON leaves out of an object. */
const omitted = (value: unknown) => value === undefined || typeof value === "function" || typeof value === "symbol";

/** The pieces of a state's snapshot text, written one after another (snapshotFile.ts). */
export function* statePieces(state: SandboxState): Generator<string> {
  yield `{"format":${JSON.stringify(state.format)},"version":${JSON.stringify(state.version)}`;
  for (const key of Object.keys(state) as Array<keyof SandboxState>) {
    if (key === "format" || key === "version" || key === "projects" || omitted(state[key])) continue;
    yield `,${JSON.stringify(key)}:${JSON.stringify(state[key])}`;
  }
  yield ',"projects":{';
  let firstProject = true;
  for (const id of Object.keys(state.projects)) {
    const project = state.projects[id]!;
    yield `${firstProject ? "" : ","}${JSON.stringify(id)}:{`;
    firstProject = false;
    for (const key of Object.keys(project) as Array<keyof typeof project>) {
      if (key === "data" || omitted(project[key])) continue;
      yield `${JSON.stringify(key)}:${JSON.stringify(project[key])},`;
    }
    yield '"data":{';
    let firstCollection = true;
    for (const name of Object.keys(project.data)) {
      const records = project.data[name]!;
      yield `${firstCollection ? "" : ","}${JSON.stringify(name)}:{`;
      firstCollection = false;
      let firstRecord = true;
      for (const recordId of Object.keys(records)) {
        if (omitted(records[recordId])) continue;
        yield `\n\t${firstRecord ? "" : ","}${JSON.stringify(recordId)}:${JSON.stringify(records[recordId])}`;
        firstRecord = false;
      }
      yield firstRecord ? "}" : "\n}";
    }
    yield "}}";
  }
  yield "}}";
}

const notJson = (file: string, why: string) => new Error(`${file} is not a cdp-sandbox data file: it is not valid JSON (${why}). Nothing was written to it.`);

/**
 * The state in the data file `file`, checked (dataFile.ts) before anything is written; undefined when the file
 * does not exist or is empty, which starts a new one.
 */
export function loadState(file: string): SandboxState | undefined {
  let fd: number;
  try {
    fd = openSync(file, "r");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new Error(`${file} cannot be read: ${(error as Error).message}`);
  }
  try {
    const head = Buffer.alloc(LAYOUT_START.length);
    const headLength = readSync(fd, head, 0, head.length, 0);
    if (headLength === LAYOUT_START.length && head.toString("latin1") === LAYOUT_START) return loadLines(fd, file);
    return loadWhole(fd, file);
  } finally {
    closeSync(fd);
  }
}

/** The older layout, or any other JSON: one parse of the whole text. */
function loadWhole(fd: number, file: string): SandboxState | undefined {
  const text = readFileSync(fd, "utf8");
  if (text.trim() === "") return undefined;
  return checkDataDocument(parse(text, file, "the document"), file);
}

function parse(text: string, file: string, what: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw notJson(file, `${what}: ${(error as Error).message}`);
  }
}

/**
 * This layout: the document with each run of record lines replaced by a stand-in (`"\0records":N`), parsed once,
 * and each record parsed from its line into its run, in the order of the file.
 */
function loadLines(fd: number, file: string): SandboxState {
  const parts: string[] = [];
  const runs: Array<Record<string, unknown>> = [];
  let run: Record<string, unknown> | undefined;
  const line = (bytes: Buffer, at: number, end: number) => {
    if (bytes[at] !== TAB) {
      run = undefined;
      parts.push(bytes.toString("utf8", at, end));
      return;
    }
    if (!run) {
      run = {};
      runs.push(run);
      parts.push(`${JSON.stringify(RECORDS_HERE)}:${runs.length - 1}`);
    }
    let keyStart = at + 1;
    if (bytes[keyStart] === COMMA) keyStart++;
    let keyEnd = keyStart + 1;
    let escaped = false;
    while (keyEnd < end && bytes[keyEnd] !== QUOTE) {
      if (bytes[keyEnd] === BACKSLASH) {
        escaped = true;
        keyEnd++;
      }
      keyEnd++;
    }
    if (bytes[keyStart] !== QUOTE || bytes[keyEnd + 1] !== COLON) throw notJson(file, `a record line at byte ${at} has no id`);
    const id = escaped ? (parse(bytes.toString("utf8", keyStart, keyEnd + 1), file, "a record's id") as string) : bytes.toString("utf8", keyStart + 1, keyEnd);
    const record = parse(bytes.toString("utf8", keyEnd + 2, end), file, `the record ${JSON.stringify(id)}`);
    // An id such as "__proto__" is a member like any other, never the object's prototype.
    if (id === "__proto__") Object.defineProperty(run, id, { value: record, enumerable: true, writable: true, configurable: true });
    else run[id] = record;
  };
  let carried = Buffer.alloc(0);
  const piece = Buffer.alloc(PIECE_BYTES);
  for (let position = 0; ; ) {
    const read = readSync(fd, piece, 0, piece.length, position);
    position += read;
    const bytes = carried.length > 0 ? Buffer.concat([carried, piece.subarray(0, read)]) : piece.subarray(0, read);
    let at = 0;
    for (let end = bytes.indexOf(NEWLINE, at); end >= 0; end = bytes.indexOf(NEWLINE, at)) {
      line(bytes, at, end);
      at = end + 1;
    }
    carried = Buffer.from(bytes.subarray(at));
    if (read === 0) {
      if (carried.length > 0) line(carried, 0, carried.length);
      break;
    }
  }
  const state = checkDataDocument(parse(parts.join("\n"), file, "the document"), file);
  for (const project of Object.values(state.projects)) {
    for (const name of Object.keys(project.data)) {
      const records = project.data[name]!;
      const at = Object.hasOwn(records, RECORDS_HERE) ? records[RECORDS_HERE] : undefined;
      if (typeof at === "number" && runs[at] && Object.keys(records).length === 1) project.data[name] = runs[at];
    }
  }
  return state;
}
