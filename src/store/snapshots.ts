/**
 * Snapshots of state, kept in memory: of one project when taken with that
 * project's bearer token, of everything otherwise. Restoring puts back
 * exactly what was saved.
 */
import type { Random } from "../random.js";
import type { ProjectRecord, SandboxState } from "./state.js";
import type { Store } from "./store.js";

type Snapshot = { scope: "global"; state: SandboxState; takenAt: string } | { scope: "project"; project: ProjectRecord; takenAt: string };

export class Snapshots {
  private readonly saved = new Map<string, Snapshot>();
  constructor(
    private readonly store: Store,
    private readonly random: Random,
  ) {}

  take(projectId: string | undefined, takenAt: string): string {
    const id = `snap_${this.random.hex(8)}`;
    if (projectId) this.saved.set(id, { scope: "project", project: this.store.copyProject(projectId)!, takenAt });
    else this.saved.set(id, { scope: "global", state: this.store.copyState(), takenAt });
    return id;
  }

  /** The snapshots of one project (with `projectId`) or the global ones, oldest first. */
  list(projectId: string | undefined): Array<{ snapshotId: string; scope: "project" | "global"; projectId?: string; takenAt: string }> {
    return [...this.saved]
      .filter(([, s]) => (projectId === undefined ? s.scope === "global" : s.scope === "project" && s.project.id === projectId))
      .map(([id, s]) => ({ snapshotId: id, scope: s.scope, ...(s.scope === "project" ? { projectId: s.project.id } : {}), takenAt: s.takenAt }));
  }

  /** false when the snapshot does not exist or belongs to another scope. */
  async restore(id: string, projectId: string | undefined): Promise<boolean> {
    const snapshot = this.saved.get(id);
    if (!snapshot) return false;
    if (snapshot.scope === "project") {
      if (projectId !== undefined && projectId !== snapshot.project.id) return false;
      await this.store.putProject(structuredClone(snapshot.project));
      return true;
    }
    if (projectId !== undefined) return false;
    await this.store.replaceState(structuredClone(snapshot.state));
    return true;
  }
}
