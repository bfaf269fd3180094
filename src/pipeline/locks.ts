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
}
