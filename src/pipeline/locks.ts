/**
 * Per-project serialization of state-changing requests. Reads run freely;
 * writes of one project run one at a time so read-check-write sequences in
 * handlers (unique names, balances) cannot interleave.
 */
export class ProjectLocks {
  private readonly tails = new Map<string, Promise<unknown>>();

  async run<T>(projectId: string, exclusive: boolean, task: () => Promise<T>): Promise<T> {
    if (!exclusive) return task();
    const previous = this.tails.get(projectId) ?? Promise.resolve();
    const current = previous.catch(() => undefined).then(task);
    this.tails.set(projectId, current);
    try {
      return await current;
    } finally {
      if (this.tails.get(projectId) === current) this.tails.delete(projectId);
    }
  }

  /**
   * Runs `task` holding the write locks of every project given (a reset or a
   * snapshot restore replaces several projects' state at once). Taken one by
   * one in sorted order, so two such calls cannot wait on each other.
   */
  runExclusive<T>(projectIds: readonly string[], task: () => Promise<T>): Promise<T> {
    const ids = [...new Set(projectIds)].sort();
    const acquire = (i: number): Promise<T> => (i === ids.length ? task() : this.run(ids[i]!, true, () => acquire(i + 1)));
    return acquire(0);
  }
}
