/**
 * With `--data FILE`, commits go to an append-only log beside the lowdb
 * snapshot (`FILE.log`), one JSON line per committed transaction, written and
 * fsynced before the request's answer leaves: a write costs the same with ten
 * records or fifty thousand (the whole snapshot was rewritten per commit, 4 MB
 * at 10,000 accounts), and an acknowledged write survives kill -9 and power
 * loss. Concurrent commits share one write and one fsync.
 *
 * The snapshot is rewritten (compaction) when the log passes a size, and on
 * the rare writes that are not a transaction (projects, settings, resets,
 * restores). At open, the snapshot is read and the log replayed; a last line
 * cut short by a crash was never acknowledged and is dropped.
 */
import { closeSync, existsSync, fsyncSync, openSync, readFileSync, statSync } from "node:fs";
import { type FileHandle, open, truncate } from "node:fs/promises";

/** One committed write: [collection, id, record] puts a record, [collection, id] deletes it. */
export type LoggedWrite = [collection: string, id: string, record?: unknown];

/**
 * One line of the log: a committed transaction of one project (`p`, `w`); fields of the state itself (`s`: the
 * default project, the import key, the start count); or a project's identity, keys and settings (`project`).
 */
export type LoggedCommit = { p: string; w: LoggedWrite[] } | { s: Record<string, unknown> } | { project: Record<string, unknown> & { id: string } };

/** The log grows to this size before the snapshot is rewritten and the log emptied. */
const COMPACT_ABOVE_BYTES = 32 * 1024 * 1024;

export class WriteAheadLog {
  private handle: FileHandle | undefined;
  /** Bytes in the log now. */
  size = 0;
  private queued: string[] = [];
  private waiting: Array<{ resolve: () => void; reject: (error: Error) => void }> = [];
  private flushing: Promise<void> | undefined;

  constructor(readonly file: string) {
    this.size = existsSync(file) ? statSync(file).size : 0;
  }

  /** The commits logged since the snapshot was written, oldest first (a cut-off last line is dropped). */
  static read(file: string): LoggedCommit[] {
    if (!existsSync(file)) return [];
    const lines = readFileSync(file, "utf8").split("\n");
    const commits: LoggedCommit[] = [];
    for (const [i, line] of lines.entries()) {
      if (line === "") continue;
      try {
        commits.push(JSON.parse(line) as LoggedCommit);
      } catch (error) {
        if (i >= lines.length - 2) break; // the last line, cut short by a crash: never acknowledged
        throw new Error(`${file} line ${i + 1} is not a logged commit: ${(error as Error).message}`);
      }
    }
    return commits;
  }

  /** Whether the log has grown enough that the snapshot should be rewritten. */
  get wantsCompaction(): boolean {
    return this.size > COMPACT_ABOVE_BYTES;
  }

  /** Appends one commit; resolves once it is on disk (fsynced), together with every commit queued meanwhile. */
  append(commit: LoggedCommit): Promise<void> {
    const line = `${JSON.stringify(commit)}\n`;
    this.queued.push(line);
    const done = new Promise<void>((resolve, reject) => this.waiting.push({ resolve, reject }));
    this.flushing ??= this.flush();
    return done;
  }

  private async flush(): Promise<void> {
    try {
      while (this.queued.length > 0) {
        const text = this.queued.join("");
        const waiting = this.waiting;
        this.queued = [];
        this.waiting = [];
        try {
          this.handle ??= await open(this.file, "a", 0o600); // owner only, as the state file
          await this.handle.write(text);
          await this.handle.sync();
          this.size += Buffer.byteLength(text);
          for (const w of waiting) w.resolve();
        } catch (error) {
          for (const w of waiting) w.reject(error as Error);
        }
      }
    } finally {
      this.flushing = undefined;
    }
  }

  /** Waits for every queued commit to be on disk. */
  async settle(): Promise<void> {
    while (this.flushing) await this.flushing;
  }

  /** After the snapshot was rewritten with everything logged: the log starts over. */
  async reset(): Promise<void> {
    await this.settle();
    await this.handle?.close();
    this.handle = undefined;
    if (existsSync(this.file)) await truncate(this.file, 0);
    this.size = 0;
  }

  async close(): Promise<void> {
    await this.settle();
    await this.handle?.close();
    this.handle = undefined;
  }
}

/** Makes a written file durable: its bytes, and (for a rename) its directory entry. */
export function fsyncPath(path: string): void {
  const fd = openSync(path, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
