/**
 * What makes a JSON document a sandbox data file (`--data FILE`: the store kept on disk, not the state file that
 * `--init` reads and export writes, which is state-files/), checked before anything is written to it: a
 * format marker and a version, and the shape the store reads (projects keyed by id, each with its keys and its
 * collections). Anything else is refused with the file's name and what was expected, so a mistyped `--data`
 * never adopts and rewrites another program's file.
 *
 * Files written before the marker existed are taken when they are recognisably ours (version 1, only the state's
 * own fields, projects of the right shape); the marker is added the next time the file is written.
 */
import type { SandboxState } from "./state.js";

const STATE_FORMAT = "cdp-sandbox-state";
const STATE_VERSION = 1;

/** The state's own top-level fields; an unmarked file with any other is not ours. */
const STATE_FIELDS = new Set(["format", "version", "defaultProjectId", "importKey", "endUserTokenSecret", "starts", "snapshotId", "projects"]);

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** A data file the sandbox refuses to load: its message names the file and says what was expected. */
class DataFileError extends Error {
  override name = "DataFileError";
}

const expected = `a cdp-sandbox data file ({"format":"${STATE_FORMAT}","version":${STATE_VERSION},"projects":{…}})`;

/** The reason `value` is not the state's shape, or undefined when it is. */
function shapeProblem(value: Record<string, unknown>): string | undefined {
  const unknown = Object.keys(value).filter((k) => !STATE_FIELDS.has(k));
  if (unknown.length > 0) return `it has fields a data file does not (${unknown.slice(0, 5).join(", ")})`;
  if (!isRecord(value.projects)) return `its "projects" is ${describe(value.projects)}, not an object of projects`;
  if (value.defaultProjectId !== undefined && typeof value.defaultProjectId !== "string") return `its "defaultProjectId" is not a string`;
  if (value.starts !== undefined && !Number.isSafeInteger(value.starts)) return `its "starts" is not an integer`;
  if (value.endUserTokenSecret !== undefined && typeof value.endUserTokenSecret !== "string") return `its "endUserTokenSecret" is not a string`;
  if (value.snapshotId !== undefined && typeof value.snapshotId !== "string") return `its "snapshotId" is not a string`;
  if (value.importKey !== undefined && !isRecord(value.importKey)) return `its "importKey" is not an object`;
  for (const [id, project] of Object.entries(value.projects)) {
    if (!isRecord(project) || project.id !== id || !Array.isArray(project.apiKeys) || !isRecord(project.data) || !isRecord(project.settings ?? {})) {
      return `its project "${id}" is not a project (an object with this id, "apiKeys" and "data")`;
    }
    for (const [collection, records] of Object.entries(project.data)) {
      if (!isRecord(records)) return `its project "${id}" holds a collection "${collection}" that is not an object of records`;
    }
  }
  return undefined;
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}

/**
 * The state held by `document` (parsed JSON of `file`), or a DataFileError. A marked file must carry a version
 * this sandbox reads; an unmarked one is migrated when it is recognisably a data file of version 1.
 */
export function checkDataDocument(document: unknown, file: string): SandboxState {
  const refuse = (why: string) => new DataFileError(`${file} is not ${expected}: ${why}. Nothing was written to it; name another file with --data.`);
  if (!isRecord(document)) throw refuse(`it holds ${describe(document)}`);
  if (document.format !== undefined && document.format !== STATE_FORMAT) throw refuse(`its "format" is ${JSON.stringify(document.format)}`);
  if (document.format === STATE_FORMAT && document.version !== STATE_VERSION) {
    throw new DataFileError(
      `${file} is a cdp-sandbox data file of version ${JSON.stringify(document.version)}; this cdp-sandbox reads version ${STATE_VERSION}. Nothing was written to it.`,
    );
  }
  if (document.format === undefined && document.version !== STATE_VERSION) throw refuse(`it has no "format" marker and no "version": ${STATE_VERSION}`);
  const problem = shapeProblem(document);
  if (problem) throw refuse(problem);
  return { ...(document as unknown as SandboxState), format: STATE_FORMAT };
}
