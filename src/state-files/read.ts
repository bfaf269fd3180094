/**
 * Reads a state file (`--init FILE`, YAML or JSON) and checks it against the
 * JSON Schema the package ships (schemas/state-file.schema.json), before
 * anything is applied. A problem names the file, the place inside it (a JSON
 * path such as `$.evmAccounts[0].balances.base-sepolia.ETH`) and what was
 * expected, so the sandbox refuses to start with a message a user can act on.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";
import { parse } from "yaml";
import { packageRoot } from "../paths.js";
import type { StateFile } from "./model.js";

export const stateFileSchemaPath = join(packageRoot, "schemas", "state-file.schema.json");

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
  validator ??= new Ajv({ allErrors: true, strict: false, validateFormats: false }).compile(JSON.parse(readFileSync(stateFileSchemaPath, "utf8")));
  return validator;
}

/** `/evmAccounts/0/name` → `$.evmAccounts[0].name`. */
export function jsonPath(pointer: string): string {
  return `$${pointer
    .split("/")
    .slice(1)
    .map((part) => part.replace(/~1/g, "/").replace(/~0/g, "~"))
    .map((part) => (/^\d+$/.test(part) ? `[${part}]` : `.${part}`))
    .join("")}`;
}

function describe(error: ErrorObject): { at: string; detail: string } {
  const at = jsonPath(error.instancePath);
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case "additionalProperties":
      return { at, detail: `unknown field '${String(params.additionalProperty)}'` };
    case "required":
      return { at, detail: `the field '${String(params.missingProperty)}' is required` };
    case "const":
    case "enum":
      return { at, detail: `expected one of ${JSON.stringify(params.allowedValues ?? [params.allowedValue])}` };
    default:
      return { at, detail: `expected a value that ${error.message ?? "fits the schema"}` };
  }
}

/** The state file's content, checked; throws StateFileError. `text` overrides reading `file` (tests, inline objects). */
export function readStateFile(file: string, text?: string): StateFile {
  let source: string;
  try {
    source = text ?? readFileSync(file, "utf8");
  } catch (error) {
    throw new StateFileError(file, "$", `cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  let content: unknown;
  try {
    // YAML is a superset of JSON: one parser reads both.
    content = parse(source, { maxAliasCount: 100 });
  } catch (error) {
    throw new StateFileError(file, "$", `is neither YAML nor JSON: ${(error as Error).message.split("\n")[0]}`);
  }
  return checkStateFile(file, content ?? {});
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
