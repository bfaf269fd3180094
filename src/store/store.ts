/**
 * Per-project state behind one interface. lowdb holds the whole state, in
 * memory by default or in a JSON file (`--data FILE`): a snapshot written
 * atomically and without stalling the server (snapshotFile.ts), plus a log of
 * the commits since (writeAheadLog.ts), fsynced before the response leaves.
 *
 * Domains never touch lowdb: they get a `ProjectTx` whose writes stay pending
 * until the request succeeds, so a failed request leaves the store as it was.
 */
import { randomBytes } from "node:crypto";
import { type ByTurns, runByTurns } from "../byTurns.js";
import { dirname } from "node:path";
import { Low, Memory } from "lowdb";
import { copyRecord } from "./copyRecord.js";
import { type CollectionOf, hasIndexKey, type IndexKey, keysOf } from "./collections.js";
import { CollectionIndexes } from "./indexes.js";
import { SnapshotFile } from "./snapshotFile.js";
import { collectLoadGarbage } from "./loadGarbage.js";
import { loadState } from "./loadState.js";
import { shareStrings } from "./shareStrings.js";
import { unparsed, warmingPieces } from "./unparsed.js";
import { fsyncPath, type LoggedCommit, type LoggedWrite, WriteAheadLog } from "./writeAheadLog.js";
import { emptyState, type ProjectMeta, type ProjectRecord, type SandboxState } from "./state.js";

const DELETED = Symbol("deleted");

/** A collection of records of one kind, inside one project, inside one transaction. */
export interface Collection<T> {
  get(id: string): T | undefined;
  list(): T[];
  find(predicate: (record: T) => boolean): T | undefined;
  filter(predicate: (record: T) => boolean): T[];
  /**
   * Hands every record, in the declared order, to `visit` without copying it: for a tally over a large collection,
   * which copies of every record would make dear (100,000 webhook deliveries: ~1.7 s of copies). Never keep or
   * change what `visit` gets.
   */
  each(visit: (record: Readonly<T>) => void): void;
  put(id: string, record: T): void;
  /** Adds a new record under a generated id; throws (a sandbox defect, never an overwrite) when the id is taken. */
  insert(id: string, record: T): void;
  delete(id: string): void;
  /** The first record whose `index` key (declared with the collection) is `key`, without scanning. */
  findBy(index: string, key: string): T | undefined;
  /** The ids of every record whose `index` key is `key`, without scanning or copying a record (committed ones first). */
  idsBy(index: string, key: string): string[];
  /** One page of the records in the declared order (newest last; `descending` turns it round), and how many there are. */
  page(offset: number, size: number, options?: { descending?: boolean }): { items: T[]; total: number };
  /**
   * One page of the records that satisfy `predicate`, in the declared order, and whether more follow: only the
   * page is copied, and the walk stops at the first match after it (a filtered list).
   */
  pageWhere(offset: number, size: number, predicate: (record: Readonly<T>) => boolean, options?: { descending?: boolean }): { items: T[]; more: boolean };
  /** The records due by `nowMs` (the declaration's `dueAt`), earliest first, read from the due index. */
  dueBy(nowMs: number): T[];
}

export interface ProjectTx {
  readonly projectId: string;
  collection<T>(of: CollectionOf<T>): Collection<T>;
  /** The project's settings as committed (read-only here; changed through the admin API). */
  settings(): Readonly<Record<string, unknown>>;
  /**
   * Marks this point of the transaction; calling the function returned undoes
   * every write made after it (a reverted batch of calls inside one request).
   */
  savepoint(): () => void;
}

export class Store {
  /** Indexes of committed records, per project record (a restored project is a new object: fresh indexes). */
  private readonly indexes = new WeakMap<ProjectRecord, Map<string, CollectionIndexes<unknown>>>();

  /** Who hears that a project's transaction committed (the node's WebSocket subscriptions). */
  private readonly commitListeners = new Set<(projectId: string) => void>();

  /** Resolved when no snapshot is being written: commits wait for it, so none lands between a snapshot and its log reset. */
  private snapshotDone: Promise<void> = Promise.resolve();

  /** Whether this store is a scratch copy made by `fork`, which lands all at once (`adopt`) or not at all. */
  private isScratch = false;

  private constructor(
    private readonly db: Low<SandboxState>,
    readonly file: string | undefined,
    private readonly log: WriteAheadLog | undefined,
  ) {}

  static async open(file?: string): Promise<Store> {
    if (!file) return new Store(new Low(new Memory<SandboxState>(), emptyState()), undefined, undefined);
    const snapshot = new SnapshotFile<SandboxState>(file);
    const { state, parsedChars } = await loadState(file, snapshot);
    const db = new Low<SandboxState>(snapshot, state);
    const log = new WriteAheadLog(`${file}.log`);
    // A collection left unparsed by the start is parsed here only when a logged write touches it.
    for (const entry of WriteAheadLog.read(log.file)) {
      if ("s" in entry) Object.assign(db.data, entry.s);
      else if ("project" in entry)
        db.data.projects[entry.project.id] = { ...(entry.project as ProjectMeta), data: db.data.projects[entry.project.id]?.data ?? {} };
      else if (db.data.projects[entry.p]) applyWrites(db.data.projects[entry.p]!, entry.w);
    }
    collectLoadGarbage(parsedChars);
    return new Store(db, file, log);
  }

  /** The sandbox's default project, once created. */
  get defaultProjectId(): string | undefined {
    return this.db.data.defaultProjectId;
  }

  /** A project's identity, keys and settings; its records are read through `begin` (or the committed readers below). */
  project(id: string): ProjectMeta | undefined {
    return Object.hasOwn(this.db.data.projects, id) ? this.db.data.projects[id] : undefined;
  }

  projects(): ProjectMeta[] {
    return Object.values(this.db.data.projects);
  }

  /**
   * Whether any committed record of the collection satisfies `predicate`: a
   * cheap check outside a transaction (the records are not copied; the
   * predicate must not change them). Used to skip work when nothing is due.
   */
  someCommitted<T>(projectId: string, of: CollectionOf<T>, predicate?: (record: Readonly<T>) => boolean): boolean {
    const project = this.db.data.projects[projectId];
    // Any record at all: a collection the start left unparsed answers from its count.
    const count = project && unparsed(project.data, of.name)?.count;
    if (predicate === undefined && count !== undefined) return count > 0;
    const records = project?.data[of.name] as Record<string, T> | undefined;
    if (!records) return false;
    // The kept ids: a `for…in` lists every key of the records object before its first step, whatever it finds.
    for (const id of this.indexesOf(project!, of).ids()) if (predicate === undefined || predicate(records[id]!)) return true;
    return false;
  }

  /**
   * Whether a committed record of the collection is due by `nowMs` (its declared `dueAt`): read from the
   * collection's due index, so it costs the same with any number of records.
   */
  hasDueCommitted<T>(projectId: string, of: CollectionOf<T>, nowMs: number): boolean {
    const project = this.db.data.projects[projectId];
    // A collection the start left unparsed: its earliest due time was written with it, so nothing is parsed here.
    const due = project && unparsed(project.data, of.name)?.due;
    if (due !== undefined) return due !== null && due <= nowMs;
    if (!project?.data[of.name]) return false;
    const earliest = this.indexesOf(project, of).earliestDue();
    return earliest !== undefined && earliest <= nowMs;
  }

  /** One committed record, read without a transaction (not a copy: never change it). */
  committedRecord<T>(projectId: string, of: CollectionOf<T>, id: string): Readonly<T> | undefined {
    const records = this.db.data.projects[projectId]?.data[of.name] as Record<string, T> | undefined;
    return records && Object.hasOwn(records, id) ? records[id] : undefined;
  }

  /** Removes every record of these projects (their keys and settings stay) and persists. */
  async clearRecords(projectIds: string[]): Promise<void> {
    await this.save(() => {
      for (const id of projectIds) {
        const project = this.db.data.projects[id];
        if (!project) continue;
        project.data = {};
        this.indexes.delete(project);
      }
    });
  }

  /** The indexes of a collection's committed records in a project, built on first use. */
  indexesOf<T>(project: ProjectRecord, of: CollectionOf<T>): CollectionIndexes<T> {
    let byCollection = this.indexes.get(project);
    if (!byCollection) {
      byCollection = new Map();
      this.indexes.set(project, byCollection);
    }
    let found = byCollection.get(of.name) as CollectionIndexes<T> | undefined;
    if (!found) {
      found = new CollectionIndexes(of, () => (project.data[of.name] ?? {}) as Record<string, T>);
      byCollection.set(of.name, found as CollectionIndexes<unknown>);
    }
    return found;
  }

  /**
   * Drops the indexes built for a project's collections; each is built again, from the records, on its first use
   * after (as after a load).
   */
  forgetIndexes(project: ProjectRecord): void {
    this.indexes.delete(project);
  }

  /** The indexes already built for a collection of a project, which a commit keeps up to date. */
  builtIndexes(project: ProjectRecord, name: string): CollectionIndexes<unknown> | undefined {
    return this.indexes.get(project)?.get(name);
  }

  /** A deep copy of one project, or of the whole state (snapshots). */
  copyProject(id: string): ProjectRecord | undefined {
    const project = this.db.data.projects[id];
    return project && structuredClone(project);
  }

  copyState(): SandboxState {
    return structuredClone(this.db.data);
  }

  /**
   * A project's records, collection by collection (the non-empty ones, by name), as a deep copy: what an export
   * writes without knowing which collections the areas declared.
   */
  recordsOf(id: string): Record<string, Record<string, unknown>> | undefined {
    const project = this.project(id) && this.db.data.projects[id]!;
    if (!project) return undefined;
    const records: Record<string, Record<string, unknown>> = {};
    for (const name of Object.keys(project.data).sort()) {
      if (unparsed(project.data, name)?.count === 0) continue;
      const collection = project.data[name]!;
      if (Object.keys(collection).length > 0) records[name] = structuredClone(collection);
    }
    return records;
  }

  /**
   * An in-memory store holding a copy of this whole state, for a batch that must land all at once or not at all
   * (a state file): `place` may first set up projects in the copy (identities, keys); nothing reaches this store
   * until `adopt` takes the scratch's state.
   */
  async fork<R>(place: (state: SandboxState) => R): Promise<{ scratch: Store; placed: R }> {
    const state = this.copyState();
    const placed = place(state);
    const scratch = await Store.open();
    scratch.isScratch = true;
    await scratch.replaceState(state);
    return { scratch, placed };
  }

  /**
   * Replaces this store's state with a scratch's (see `fork`), which hands it over: the scratch is not used after.
   * Taken as it is rather than copied (a copy of an init file's 100,000 accounts cost as much as making them).
   */
  async adopt(scratch: Store): Promise<void> {
    const state = scratch.db.data;
    scratch.db.data = emptyState();
    await this.replaceState(state);
  }

  /** The sandbox-wide import key, created once and kept with the data. */
  async ensureImportKey(create: () => Promise<{ publicKeyPem: string; privateKeyPem: string }>): Promise<{ publicKeyPem: string; privateKeyPem: string }> {
    if (!this.db.data.importKey) {
      const importKey = await create();
      await this.logEntry({ s: { importKey } }, () => {
        this.db.data.importKey = importKey;
      });
    }
    return this.db.data.importKey!;
  }

  async ensureEndUserTokenSecret(create: () => string): Promise<string> {
    if (!this.db.data.endUserTokenSecret) {
      const endUserTokenSecret = create();
      await this.logEntry({ s: { endUserTokenSecret } }, () => {
        this.db.data.endUserTokenSecret = endUserTokenSecret;
      });
    }
    return this.db.data.endUserTokenSecret!;
  }

  /**
   * Persists the whole state (a no-op in memory): the snapshot is rewritten,
   * made durable, and the log of commits starts over. For the writes that
   * are not a transaction, and when the log has grown (compaction). `change`,
   * the write that needs the snapshot, is applied once no other snapshot is
   * being written: a snapshot is written over several turns of the event
   * loop, and must not see the state change half way.
   */
  async save(change?: () => void): Promise<void> {
    if (!this.file || !this.log) {
      change?.();
      return;
    }
    let done!: () => void;
    const previous = this.snapshotDone;
    this.snapshotDone = new Promise((resolve) => {
      done = resolve;
    });
    try {
      await previous;
      await this.log.settle(); // every acknowledged commit is in memory, and so in the snapshot
      change?.();
      // Names this version of the file for its index; drawn from the system, not the seeded stream, as two versions
      // of one file must never share it, whatever the seed.
      this.db.data.snapshotId = randomBytes(12).toString("hex");
      await this.db.write(); // a temporary file, fsynced, renamed over the snapshot (then its index written)
      fsyncPath(dirname(this.file)); // the rename itself
      await this.log.reset();
    } finally {
      done();
    }
  }

  /** Applies a change and makes it durable (appended to the log, fsynced); in memory, applying is all. */
  async logEntry(entry: LoggedCommit, apply: () => void): Promise<void> {
    if (!this.log) {
      apply();
      return;
    }
    await this.snapshotDone;
    apply();
    await this.log.append(entry);
    if (this.log.wantsCompaction) await this.save();
  }

  /** After a project's identity, keys or settings changed in place: makes the change durable. */
  async saveProject(id: string): Promise<void> {
    const project = this.db.data.projects[id];
    if (!project) return;
    const { data: _records, ...meta } = project;
    await this.logEntry({ project: structuredClone(meta) }, () => undefined);
  }

  /**
   * Parses the collections a start through the data file's index left unparsed, a piece of ~256 KB per turn of the
   * event loop, so no later first read holds the loop for the whole collection. Nothing to do after a whole-file
   * start or without a data file.
   */
  warmUp(): ByTurns {
    return runByTurns(warmingPieces(Object.values(this.db.data.projects).map((project) => project.data)));
  }

  /**
   * At a clean shutdown: the snapshot takes in what the log holds, so the data file alone is the whole state again
   * (after a crash, the next start replays the log instead).
   */
  async close(): Promise<void> {
    if (this.log && this.log.size > 0) await this.save();
    await this.log?.close();
  }

  /** Puts `records` in place of a project's records, its identity and credentials kept (a node's loaded dump). */
  async replaceRecords(id: string, records: ProjectRecord["data"]): Promise<boolean> {
    const project = this.copyProject(id);
    if (!project) return false;
    await this.putProject({ ...project, data: structuredClone(records) });
    return true;
  }

  /** Adds or replaces a project; one with records (a snapshot restored) rewrites the snapshot. */
  async putProject(project: ProjectRecord): Promise<void> {
    if (Object.keys(project.data).length > 0) {
      await this.save(() => {
        this.db.data.projects[project.id] = project;
      });
    } else {
      const { data: _records, ...meta } = project;
      await this.logEntry({ project: structuredClone(meta) }, () => {
        this.db.data.projects[project.id] = project;
      });
    }
    this.committed(project.id); // what watches a project's data (the nodes' WebSockets) reads it again
  }

  /**
   * Records one more start of the sandbox on this state and returns how many came before (0 the first time; a state
   * written before starts were counted, with a default project, has had one). Seeded randomness depends on it.
   */
  async countStart(): Promise<number> {
    const earlier = this.db.data.starts ?? (this.db.data.defaultProjectId === undefined ? 0 : 1);
    await this.logEntry({ s: { starts: earlier + 1 } }, () => {
      this.db.data.starts = earlier + 1;
    });
    return earlier;
  }

  async setDefaultProject(id: string): Promise<void> {
    await this.logEntry({ s: { defaultProjectId: id } }, () => {
      this.db.data.defaultProjectId = id;
    });
  }

  /** Replaces the whole state (snapshot restore). */
  async replaceState(state: SandboxState): Promise<void> {
    await this.save(() => {
      this.db.data = state;
    });
    for (const id of Object.keys(state.projects)) this.committed(id); // as putProject
  }

  /**
   * Calls `listener` after each commit of a project's transaction that wrote something, once its writes are
   * readable; returns the function that stops it. A listener must not throw (it runs in the committer's turn).
   */
  onCommit(listener: (projectId: string) => void): () => void {
    this.commitListeners.add(listener);
    return () => this.commitListeners.delete(listener);
  }

  /** Tells the commit listeners that `projectId` committed (PendingTx.commit calls it). */
  committed(projectId: string): void {
    for (const listener of this.commitListeners) listener(projectId);
  }

  /** Whether this store is a scratch copy (`fork`): its transactions may write through (PendingTx.writingThrough). */
  get scratch(): boolean {
    return this.isScratch;
  }

  /** Starts a transaction on one project's data. */
  begin(projectId: string): PendingTx {
    const project = this.db.data.projects[projectId];
    if (!project) throw new Error(`unknown project ${projectId}`);
    return new PendingTx(this, project);
  }
}

export class PendingTx implements ProjectTx {
  private readonly pending = new Map<string, Map<string, unknown>>();
  /**
   * The pending writes' index keys, per collection and index: key → ids. Built on a collection's first `findBy`
   * and kept up to date by every write after, so a transaction of many writes (an init file's 100,000 accounts,
   * each checking its name is free) finds by key without walking its writes each time.
   */
  private readonly pendingIndexes = new Map<string, Map<string, Map<string, Set<string>>>>();
  /** Whether a write keeps a copy of the record it is given (always, but inside `writingThrough`). */
  private copyWrites = true;
  /** Whether writes land in the project's records at once (inside `writingThrough`) rather than at the commit. */
  private direct = false;

  constructor(
    private readonly store: Store,
    private readonly project: ProjectRecord,
  ) {}

  get projectId(): string {
    return this.project.id;
  }

  settings(): Readonly<Record<string, unknown>> {
    return this.project.settings;
  }

  /**
   * Runs `work` with `put` and `insert` keeping the record they are given instead of a copy, for writers that hand
   * over records they made and never touch again (an init file's accounts, by the hundred thousand: the copies were
   * a tenth of the start). On a scratch store (`Store.fork`) the writes also go straight into its records, as a
   * commit would put them, rather than into pending writes copied there at the commit (~3 s of a start with 100,000
   * accounts, and their memory): a scratch is all-or-nothing already, adopted whole or dropped, so the transaction
   * need not be. The writes pending before are committed first, so the order of the writes is kept. Reads still hand
   * out copies. The scratch's indexes built so far are dropped: a write keeps up to date only those built again by a
   * read during `work` (an init file's checks its names itself), and the store that adopts the scratch builds its
   * own anyway.
   */
  async handingOver<R>(work: () => Promise<R>): Promise<R> {
    if (this.store.scratch) {
      await this.commit();
      this.store.forgetIndexes(this.project);
    }
    this.copyWrites = false;
    this.direct = this.store.scratch;
    try {
      return await work();
    } finally {
      this.copyWrites = true;
      this.direct = false;
      if (this.store.scratch) this.store.committed(this.project.id); // as a commit tells
    }
  }

  get dirty(): boolean {
    return this.pending.size > 0;
  }

  /**
   * The views `collection` made, one per declaration: a view reads the transaction's state when called, never
   * when made, so one serves every call (an init file's accounts asked for one ~10 times each, and the views'
   * closures were a fifth of what the init allocated).
   */
  private readonly views = new Map<CollectionOf<unknown>, Collection<unknown>>();

  collection<T>(of: CollectionOf<T>): Collection<T> {
    let view = this.views.get(of as CollectionOf<unknown>) as Collection<T> | undefined;
    if (!view) {
      view = this.makeCollection(of);
      this.views.set(of as CollectionOf<unknown>, view as Collection<unknown>);
    }
    return view;
  }

  private makeCollection<T>(of: CollectionOf<T>): Collection<T> {
    const name = of.name;
    const committed = () => (this.project.data[name] ?? {}) as Record<string, T>;
    const writes = () => {
      let w = this.pending.get(name);
      if (!w) {
        w = new Map();
        this.pending.set(name, w);
      }
      return w;
    };
    /** Sets a pending write, moving its id between the keys of the indexes built so far. */
    const write = (id: string, value: unknown) => {
      if (this.direct) {
        applyWrite(this.project, name, id, value === DELETED ? undefined : value, this.store.builtIndexes(this.project, name));
        return;
      }
      const w = writes();
      const built = this.pendingIndexes.get(name);
      if (built) {
        const before = w.get(id);
        for (const [index, byKey] of built) {
          const keyOf = of.indexes![index]!;
          if (before !== undefined && before !== DELETED) for (const key of keysOf(keyOf, before as T)) byKey.get(key)?.delete(id);
          if (value !== DELETED) for (const key of keysOf(keyOf, value as T)) byKey.set(key, (byKey.get(key) ?? new Set()).add(id));
        }
      }
      w.set(id, value);
    };
    /** The ids of pending writes under `key` of `index` (the index built from the writes on first use). */
    const pendingUnder = (index: string, keyOf: IndexKey<T>, key: string): Iterable<string> => {
      let built = this.pendingIndexes.get(name);
      if (!built) {
        built = new Map();
        this.pendingIndexes.set(name, built);
      }
      let byKey = built.get(index);
      if (!byKey) {
        byKey = new Map();
        for (const [id, v] of this.pending.get(name) ?? []) {
          if (v !== DELETED) for (const k of keysOf(keyOf, v as T)) byKey.set(k, (byKey.get(k) ?? new Set()).add(id));
        }
        built.set(index, byKey);
      }
      return byKey.get(key) ?? [];
    };
    /**
     * The records as this transaction sees them, in the order a merged map
     * gives (committed order, pending writes in place, new ones last). Most
     * reads come before any write to the collection: then the committed
     * values are the view, with no map to build.
     */
    const current = (): T[] => {
      const c = committed();
      const w = this.pending.get(name);
      const ids = this.store.indexesOf(this.project, of).ids();
      if (!w || w.size === 0) return ids.map((id) => c[id]!);
      const merged = new Map<string, T>();
      for (const id of ids) merged.set(id, c[id]!);
      for (const [id, value] of w) {
        if (value === DELETED) merged.delete(id);
        else merged.set(id, value as T);
      }
      return [...merged.values()];
    };
    /**
     * Rare: a list inside a request that already wrote the collection. The records as this transaction sees
     * them, in the order the index would give them (not copies).
     */
    const inPendingOrder = (descending: boolean): T[] => {
      const all = current();
      if (of.order !== "insertion") {
        const w = this.pending.get(name)!;
        const order = of.order as (a: T, b: T) => number;
        const ids = new Map<T, string>();
        const c = committed();
        for (const id of Object.keys(c)) if (!w.has(id)) ids.set(c[id]!, id);
        for (const [id, v] of w) if (v !== DELETED) ids.set(v as T, id);
        all.sort((a, b) => order(a, b) || (ids.get(a)! < ids.get(b)! ? -1 : ids.get(a)! > ids.get(b)! ? 1 : 0));
      }
      return descending ? all.reverse() : all;
    };
    // Reads hand out copies so that a handler mutating a record cannot change committed state.
    return {
      get: (id) => {
        const w = this.pending.get(name);
        if (w?.has(id)) {
          const v = w.get(id);
          return v === DELETED ? undefined : copyRecord(v as T);
        }
        const c = committed();
        // Own records only: an id such as "constructor" must not find Object.prototype's member.
        return Object.hasOwn(c, id) ? copyRecord(c[id]) : undefined;
      },
      list: () => current().map((v) => copyRecord(v)),
      find: (predicate) => {
        for (const v of current()) if (predicate(v)) return copyRecord(v);
        return undefined;
      },
      filter: (predicate) => {
        const found: T[] = [];
        for (const v of current()) if (predicate(v)) found.push(copyRecord(v));
        return found;
      },
      each: (visit) => {
        for (const v of current()) visit(v);
      },
      // A write keeps structuredClone's copy: its strings come out flat (see copyRecord.ts).
      put: (id, record) => write(id, this.copyWrites ? structuredClone(record) : record),
      insert: (id, record) => {
        const w = this.pending.get(name);
        const taken = w?.has(id) ? w.get(id) !== DELETED : Object.hasOwn(committed(), id);
        if (taken) throw new Error(`${name}: a record with id ${id} already exists; a new record never replaces it`);
        write(id, this.copyWrites ? structuredClone(record) : record);
      },
      delete: (id) => write(id, DELETED),
      findBy: (index, key) => {
        const keyOf = of.indexes?.[index];
        if (!keyOf) throw new Error(`collection ${name} declares no index ${index}`);
        const w = this.pending.get(name);
        // Pending writes first: they shadow committed records and may add new ones.
        if (w) {
          for (const id of pendingUnder(index, keyOf, key)) {
            const v = w.get(id);
            if (v !== undefined && v !== DELETED && hasIndexKey(keyOf, v as T, key)) return copyRecord(v as T);
          }
        }
        const c = committed();
        for (const id of this.store.indexesOf(this.project, of).lookup(index, key)) if (!w?.has(id)) return copyRecord(c[id]!);
        return undefined;
      },
      idsBy: (index, key) => {
        const keyOf = of.indexes?.[index];
        if (!keyOf) throw new Error(`collection ${name} declares no index ${index}`);
        const w = this.pending.get(name);
        const ids: string[] = [];
        // A committed record a pending write shadows is counted from the write, if it still has the key.
        for (const id of this.store.indexesOf(this.project, of).lookup(index, key)) if (!w?.has(id)) ids.push(id);
        if (w) {
          for (const id of pendingUnder(index, keyOf, key)) {
            const v = w.get(id);
            if (v !== undefined && v !== DELETED && hasIndexKey(keyOf, v as T, key)) ids.push(id);
          }
        }
        return ids;
      },
      dueBy: (nowMs) => {
        const dueAt = of.dueAt;
        if (!dueAt) throw new Error(`collection ${name} declares no due time`);
        const w = this.pending.get(name);
        const c = committed();
        const found: Array<[number, string, T]> = [];
        for (const id of this.store.indexesOf(this.project, of).dueBy(nowMs)) if (!w?.has(id)) found.push([dueAt(c[id]!)!, id, c[id]!]);
        if (w) {
          // Writes of this transaction shadow committed records: those due are merged in their place.
          for (const [id, v] of w) {
            const at = v === DELETED ? undefined : dueAt(v as T);
            if (at !== undefined && at <= nowMs) found.push([at, id, v as T]);
          }
          found.sort((a, b) => a[0] - b[0] || (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0));
        }
        return found.map(([, , v]) => copyRecord(v));
      },
      page: (offset, size, options = {}) => {
        const w = this.pending.get(name);
        if (w && w.size > 0) {
          const sorted = inPendingOrder(options.descending === true);
          return { items: sorted.slice(offset, offset + size).map((v) => copyRecord(v)), total: sorted.length };
        }
        const index = this.store.indexesOf(this.project, of);
        const c = committed();
        return { items: index.page(offset, size, options.descending === true).map((id) => copyRecord(c[id]!)), total: index.size };
      },
      pageWhere: (offset, size, predicate, options = {}) => {
        const w = this.pending.get(name);
        const items: T[] = [];
        let matched = 0;
        // Walks the records in order without copying them, and stops at the first match after the page.
        const visit = (record: T): boolean => {
          if (!predicate(record)) return false;
          if (matched++ < offset) return false;
          if (items.length === size) return true;
          items.push(copyRecord(record));
          return false;
        };
        if (w && w.size > 0) {
          for (const record of inPendingOrder(options.descending === true)) if (visit(record)) return { items, more: true };
          return { items, more: false };
        }
        const ids = this.store.indexesOf(this.project, of).orderedIds();
        const c = committed();
        if (options.descending) {
          for (let i = ids.length - 1; i >= 0; i--) if (visit(c[ids[i]!]!)) return { items, more: true };
        } else {
          for (const id of ids) if (visit(c[id]!)) return { items, more: true };
        }
        return { items, more: false };
      },
    };
  }

  savepoint(): () => void {
    // Writes made through cannot be undone: from a savepoint on, they are pending again (those before it stay in).
    this.direct = false;
    // Values in `pending` are never mutated in place (put stores a fresh copy), so copying the maps is enough.
    const saved = [...this.pending].map(([name, writes]) => [name, new Map(writes)] as const);
    return () => {
      this.pending.clear();
      this.pendingIndexes.clear(); // rebuilt from the restored writes on the next findBy
      for (const [name, writes] of saved) this.pending.set(name, new Map(writes));
    };
  }

  /** Applies every pending write at once and makes them durable. */
  async commit(): Promise<void> {
    if (this.pending.size === 0) return;
    const writes: LoggedWrite[] = [];
    for (const [name, byId] of this.pending) for (const [id, value] of byId) writes.push(value === DELETED ? [name, id] : [name, id, value]);
    this.pending.clear();
    this.pendingIndexes.clear();
    await this.store.logEntry({ p: this.project.id, w: writes }, () =>
      applyWrites(this.project, writes, (name) => this.store.builtIndexes(this.project, name)),
    );
    this.store.committed(this.project.id);
  }

  discard(): void {
    this.pending.clear();
    this.pendingIndexes.clear();
  }
}

/** The two records last written to each collection (its records object): the neighbours a new record shares strings with. */
const lastWritten = new WeakMap<object, [unknown, unknown]>();

/** Applies committed writes to a project's records, keeping built indexes up to date. */
function applyWrites(
  project: ProjectRecord,
  writes: LoggedWrite[],
  indexesOf: (name: string) => CollectionIndexes<unknown> | undefined = () => undefined,
): void {
  for (const [name, id, ...rest] of writes) applyWrite(project, name, id, rest.length === 0 ? undefined : rest[0], indexesOf(name));
}

/** Applies one write (`after` undefined: a delete) to a project's records, keeping the collection's built indexes up to date. */
function applyWrite(project: ProjectRecord, name: string, id: string, after: unknown, indexes: CollectionIndexes<unknown> | undefined): void {
  project.data[name] ??= {};
  const target = project.data[name];
  const before = Object.hasOwn(target, id) ? target[id] : undefined;
  indexes?.update(id, before, after);
  if (after === undefined) {
    delete target[id];
    return;
  }
  // A changed record repeats most of the version it replaces; a new one, the records written before it.
  const last = lastWritten.get(target);
  if (before !== undefined) shareStrings(after, before, id, last?.[0]);
  else shareStrings(after, last?.[0], id, last?.[1]);
  lastWritten.set(target, [after, last?.[0]]);
  target[id] = after;
}
