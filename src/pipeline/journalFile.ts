/**
 * `--journal FILE`: every journal entry appended to a file as one line of
 * JSON, with its request and response (credentials cut, each body cut at a
 * size per entry rather than keeping only the newest few), so the journal
 * outlives the run. Lines written in one turn of the event loop go out in one
 * append at the end of it; `flush()` writes what is pending at once (on close,
 * at exit and on signals), so a killed process leaves every finished request
 * in the file.
 */
import { appendFileSync, closeSync, mkdirSync, openSync } from "node:fs";
import { dirname } from "node:path";
import type { JournalDetail, JournalEntry, JournalSink } from "./journal.js";

/** Characters of each body kept in the file. */
const DEFAULT_FILE_BODY_LIMIT = 256 * 1024;

function cut<T extends { body?: string; truncated?: boolean }>(message: T, limit: number): T {
  if (message.body === undefined || message.body.length <= limit) return message;
  return { ...message, body: message.body.slice(0, limit), truncated: true };
}

export class JournalFile implements JournalSink {
  private pending: string[] = [];
  private scheduled = false;
  private closed = false;
  private readonly fd: number;

  constructor(
    readonly file: string,
    private readonly bodyLimit = DEFAULT_FILE_BODY_LIMIT,
  ) {
    // Appends to what is there: a journal of several runs reads as one. A folder that does not exist yet
    // (test-results/ before the first run) is made, as a test runner's reporters do.
    mkdirSync(dirname(file), { recursive: true });
    this.fd = openSync(file, "a");
  }

  write(entry: JournalEntry, detail: JournalDetail): void {
    if (this.closed) return;
    const line = { ...entry, request: cut(detail.request, this.bodyLimit), response: cut(detail.response, this.bodyLimit) };
    this.pending.push(`${JSON.stringify(line)}\n`);
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.flush());
  }

  /** Writes every pending line now (synchronously: it also runs at exit and in signal handlers). */
  flush(): void {
    this.scheduled = false;
    if (this.pending.length === 0) return;
    const text = this.pending.join("");
    this.pending = [];
    appendFileSync(this.fd, text);
  }

  close(): void {
    if (this.closed) return;
    this.flush();
    this.closed = true;
    closeSync(this.fd);
  }
}
