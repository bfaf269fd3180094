/**
 * `--journal FILE`: every journal entry appended to a file as one line of
 * JSON, with its request and response (credentials cut, each body cut at a
 * size per entry rather than keeping only the newest few), so the journal
 * outlives the run. Lines written in one turn of the event loop go out in one
 * append at the end of it; `flush()` writes what is pending at once (on close,
 * at exit and on signals), so a killed process leaves every finished request
 * in the file.
 *
 * The file is evidence, not the service: a write that fails (a full disk, a path
 * that cannot be opened) turns the file off with one warning, and
 * `GET /_sandbox/health` says so; requests go on being answered and kept in memory.
 */
import { appendFileSync, closeSync, mkdirSync, openSync } from "node:fs";
import { dirname } from "node:path";
import type { JournalDetail, JournalEntry, JournalFileStatus, JournalSink } from "./journal.js";

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
  private fd: number | undefined;
  private failure: string | undefined;

  constructor(
    readonly file: string,
    private readonly bodyLimit = DEFAULT_FILE_BODY_LIMIT,
    /** Where the one warning goes when the file is turned off (stderr from the command). */
    private readonly warn: (message: string) => void = () => undefined,
  ) {
    try {
      // Appends to what is there: a journal of several runs reads as one.
      // A folder that does not exist yet (test-results/ before the first run) is made, as a test runner's reporters do.
      mkdirSync(dirname(file), { recursive: true });
      // Owner only when new: bodies are redacted, but requests and answers are still the user's business.
      this.fd = openSync(file, "a", 0o600);
    } catch (error) {
      this.fail(error);
    }
  }

  status(): JournalFileStatus {
    return this.failure === undefined ? { file: this.file, writing: true } : { file: this.file, writing: false, error: this.failure };
  }

  write(entry: JournalEntry, detail: JournalDetail): void {
    if (this.closed || this.fd === undefined) return;
    const line = { ...entry, request: cut(detail.request, this.bodyLimit), response: cut(detail.response, this.bodyLimit) };
    this.pending.push(`${JSON.stringify(line)}\n`);
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.flush());
  }

  /** Writes every pending line now (synchronously: it also runs at exit and in signal handlers). */
  flush(): void {
    this.scheduled = false;
    if (this.pending.length === 0 || this.fd === undefined) return;
    const text = this.pending.join("");
    this.pending = [];
    try {
      appendFileSync(this.fd, text);
    } catch (error) {
      this.fail(error);
    }
  }

  close(): void {
    if (this.closed) return;
    this.flush();
    this.closed = true;
    this.release();
  }

  /** Turns the file off for the rest of the run: one warning, nothing more written or thrown. */
  private fail(error: unknown): void {
    const code = (error as NodeJS.ErrnoException).code;
    const message = (error as Error).message;
    // Node's file errors already begin with their code ("ENOSPC: no space left on device, write").
    this.failure = code && !message.startsWith(code) ? `${code}: ${message}` : message;
    this.pending = [];
    this.release();
    this.warn(`--journal ${this.file}: ${this.failure}; the journal file is turned off for this run (GET /_sandbox/requests still has the journal)`);
  }

  private release(): void {
    if (this.fd === undefined) return;
    const fd = this.fd;
    this.fd = undefined;
    try {
      closeSync(fd);
    } catch {
      // Already unusable: nothing more to release.
    }
  }
}
