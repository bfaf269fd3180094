/**
 * `--report DIR`: the coverage document written where a CI system reads it, when the sandbox stops:
 * `coverage.json` (schemas/coverage.schema.json), `junit.xml` and `summary.md`. Each file is written beside its
 * place and renamed over it, so a reader never sees half a file; synchronously, so a signal handler can finish it.
 */
import { mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { CoverageDocument } from "./coverage.js";
import { junitXml } from "./coverageJunit.js";
import { summaryMarkdown } from "./coverageSummary.js";

/**
 * Makes the folder and proves a file can be written in it, so a path that cannot be is refused before anything
 * starts (rather than at the end of a long run). Throws with the reason.
 */
export function checkReportDir(dir: string): void {
  const probe = join(dir, `.cdp-sandbox-probe-${process.pid}`);
  try {
    mkdirSync(dir, { recursive: true });
    writeFileSync(probe, "");
    rmSync(probe);
  } catch (error) {
    throw new Error(`the report folder ${resolve(dir)} cannot be written: ${(error as Error).message}`);
  }
}

function writeAtomically(path: string, text: string): void {
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, text);
  renameSync(temporary, path);
}

/**
 * Writes the three files of a report.
 *
 * @param journal where the journal entries are kept (the `--journal` file), named so a reader finds a violation's request
 */
export function writeReport(dir: string, doc: CoverageDocument, journal?: string): void {
  mkdirSync(dir, { recursive: true });
  const where = journal ? resolve(journal) : undefined;
  writeAtomically(join(dir, "coverage.json"), `${JSON.stringify(where ? { ...doc, journal: where } : doc, null, 2)}\n`);
  writeAtomically(join(dir, "junit.xml"), junitXml(doc, where));
  writeAtomically(join(dir, "summary.md"), summaryMarkdown(doc, where));
}
