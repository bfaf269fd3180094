/**
 * A project transaction with an undo log: every write records what it
 * replaced, so a call frame that reverts puts back exactly what it changed.
 * Marks are positions in the log, so a checkpoint costs nothing however many
 * writes the request already made (the store's own savepoint copies them).
 * The EVM's frames and the modelled contracts they call write through it, so
 * balances, nonces, code and storage roll back together.
 */
import type { CollectionOf } from "../../store/collections.js";
import type { Collection, ProjectTx } from "../../store/store.js";

type Undo = () => void;

export class JournaledTx implements ProjectTx {
  private readonly undo: Undo[] = [];
  private readonly marks: number[] = [];

  constructor(readonly inner: ProjectTx) {}

  get projectId(): string {
    return this.inner.projectId;
  }

  settings(): Readonly<Record<string, unknown>> {
    return this.inner.settings();
  }

  /** How deep the open checkpoints go (0: none). */
  get depth(): number {
    return this.marks.length;
  }

  checkpoint(): void {
    this.marks.push(this.undo.length);
  }

  /** Keeps what the innermost checkpoint did (it becomes part of the enclosing one). */
  commit(): void {
    if (this.marks.pop() === undefined) throw new Error("commit without a checkpoint");
  }

  /** Undoes every write since the innermost checkpoint. */
  revert(): void {
    const mark = this.marks.pop();
    if (mark === undefined) throw new Error("revert without a checkpoint");
    this.rollBackTo(mark);
  }

  savepoint(): () => void {
    const mark = this.undo.length;
    return () => this.rollBackTo(mark);
  }

  private rollBackTo(mark: number): void {
    while (this.undo.length > mark) this.undo.pop()!();
  }

  collection<T>(of: CollectionOf<T>): Collection<T> {
    const inner = this.inner.collection(of);
    const remember = (id: string) => {
      const before = inner.get(id);
      this.undo.push(before === undefined ? () => inner.delete(id) : () => inner.put(id, before));
    };
    return {
      ...inner,
      put: (id, record) => {
        remember(id);
        inner.put(id, record);
      },
      insert: (id, record) => {
        inner.insert(id, record);
        this.undo.push(() => inner.delete(id));
      },
      delete: (id) => {
        remember(id);
        inner.delete(id);
      },
    };
  }
}
