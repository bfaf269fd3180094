/**
 * Reads a state file (`--init FILE`, YAML or JSON) and checks it against the
 * JSON Schema the package ships (schemas/state-file.schema.json), before
 * anything is applied. A problem names the file, the place inside it (a JSON
 * path such as `$.evmAccounts[0].balances.base-sepolia.ETH`) and what was
 * expected, so the sandbox refuses to start with a message a user can act on.
 */
import { closeSync, openSync, readFileSync, readSync } from "node:fs";
import { join } from "node:path";
import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";
import { parse } from "yaml";
import { packageRoot } from "../paths.js";
import type { StateFile } from "./model.js";

const stateFileSchemaPath = join(packageRoot, "schemas", "state-file.schema.json");

/** A state file that cannot be used: the message says which file, where, and what was expected. */
export class StateFileError extends Error {
  constructor(
    readonly file: string,
    readonly at: string,
    detail: string,
  ) {
    super(`${file}: ${at}: ${detail}`);
    this.name = "StateFileError";
  }
}

let validator: ValidateFunction | undefined;

function validate(): ValidateFunction {
  // Formats (date-time) are checked where the value is used: the schema's `format` is for editors.
  validator ??= new Ajv({ allErrors: true, strict: false, validateFormats: false, verbose: true }).compile(
    JSON.parse(readFileSync(stateFileSchemaPath, "utf8")),
  );
  return validator;
}

/** `/evmAccounts/0/name` → `$.evmAccounts[0].name`. */
function jsonPath(pointer: string): string {
  return `$${pointer
    .split("/")
    .slice(1)
    .map((part) => part.replace(/~1/g, "/").replace(/~0/g, "~"))
    .map((part) => (/^\d+$/.test(part) ? `[${part}]` : `.${part}`))
    .join("")}`;
}

const shown = (value: unknown) => {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
};

function describe(error: ErrorObject): { at: string; detail: string } {
  const at = jsonPath(error.instancePath);
  const params = error.params as Record<string, unknown>;
  const description = (error.parentSchema as { description?: string } | undefined)?.description?.replace(/\.$/, "");
  switch (error.keyword) {
    case "additionalProperties":
      return { at, detail: `unknown field '${String(params.additionalProperty)}'` };
    case "required":
      return { at, detail: `the field '${String(params.missingProperty)}' is required` };
    case "const":
    case "enum":
      return { at, detail: `expected one of ${JSON.stringify(params.allowedValues ?? [params.allowedValue])}, got ${shown(error.data)}` };
    case "type":
      return { at, detail: `expected ${String(params.type)}${description ? ` (${description})` : ""}, got ${shown(error.data)}` };
    case "pattern":
      return { at, detail: `expected ${description ?? `text matching ${String(params.pattern)}`}, got ${shown(error.data)}` };
    default:
      return { at, detail: `expected a value that ${error.message ?? "fits the schema"}, got ${shown(error.data)}` };
  }
}

/** The most bytes a state file may have: an export of 100,000 accounts is ~40 MB. */
const MAX_STATE_FILE_BYTES = 128 * 1024 * 1024;

/**
 * The file's text, read in chunks up to MAX_STATE_FILE_BYTES: a device that never ends (`/dev/zero`) or a file too
 * large is refused once the bound is passed, not read until memory runs out. Pipes (`--init <(…)`) are read as files.
 */
function readBounded(file: string): string {
  const fd = openSync(file, "r");
  try {
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(1024 * 1024);
      const read = readSync(fd, chunk, 0, chunk.length, null);
      if (read === 0) break;
      total += read;
      if (total > MAX_STATE_FILE_BYTES)
        throw new StateFileError(file, "$", `is larger than ${MAX_STATE_FILE_BYTES / 1024 / 1024} MiB, the most a state file may be`);
      chunks.push(chunk.subarray(0, read));
    }
    return Buffer.concat(chunks, total).toString("utf8");
  } finally {
    closeSync(fd);
  }
}

function parseJsonOrUndefined(source: string): unknown {
  if (!/^\s*[[{]/.test(source)) return undefined;
  try {
    return JSON.parse(source) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * The state file's content as parsed, not yet checked (checkStateFile; an empty file gives an empty object); throws
 * StateFileError.
 */
export function parseStateFile(file: string): unknown {
  let source: string;
  try {
    source = readBounded(file);
  } catch (error) {
    if (error instanceof StateFileError) throw error;
    throw new StateFileError(file, "$", `cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  let content: unknown;
  try {
    // YAML is a superset of JSON: one parser reads both. A JSON file goes to JSON.parse first, a hundred times
    // faster (an export of 20,000 accounts: 4.6 s of YAML parsing); text it refuses is read as YAML.
    content = parseJsonOrUndefined(source) ?? parse(source, { maxAliasCount: 100 });
  } catch (error) {
    throw new StateFileError(file, "$", `is neither YAML nor JSON: ${(error as Error).message.split("\n")[0]}`);
  }
  return content ?? {};
}

/** Checks parsed content against the schema; throws StateFileError naming the first problem (and how many more). */
export function checkStateFile(file: string, content: unknown): StateFile {
  const check = validate();
  if (check(content)) return content as StateFile;
  const errors = check.errors ?? [];
  // The most specific problem first: the deepest path says most about what to change.
  const first = [...errors].sort((a, b) => b.instancePath.length - a.instancePath.length)[0]!;
  const { at, detail } = describe(first);
  const more = errors.length > 1 ? ` (and ${errors.length - 1} more problem${errors.length > 2 ? "s" : ""})` : "";
  throw new StateFileError(file, at, `${detail}${more}`);
}
