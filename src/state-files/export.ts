/**
 * The state as a state file (`GET /_sandbox/export`, `--export-on-exit`):
 * every project's identity, credentials and settings, and its records,
 * collection by collection, as the store holds them. Nothing here knows which
 * collections exist: whatever an area declares and writes is exported, so
 * `--init` of an export gives back the same names, addresses, keys,
 * balances and records.
 */
import type { Clock } from "../clock.js";
import type { Store } from "../store/store.js";
import type { ProjectEntry, StateFile } from "./model.js";

/** One project (or every one) as a state file. */
export function exportState(store: Store, clock: Clock, projectId?: string): StateFile {
  const ids = projectId ? [projectId] : store.projects().map((p) => p.id);
  const projects: ProjectEntry[] = [];
  for (const id of ids) {
    const project = store.project(id);
    // Sorted by collection, so two exports of the same state are the same text.
    const records = store.recordsOf(id);
    if (!project || !records) continue;
    const key = project.apiKeys.find((k) => k.verified && k.apiKeySecret);
    // Whatever else the project's identity holds (fields added later included) goes along as it is.
    // (The record as the store holds it also carries its collections, exported below as `records`.)
    const whole = project as typeof project & { data?: unknown };
    const { id: _id, name: _name, createdAt: _createdAt, settings: _settings, apiKeys: _keys, walletSecret: _wallet, data: _data, ...meta } = whole;
    projects.push({
      id: project.id,
      name: project.name,
      ...(id === store.defaultProjectId ? { default: true } : {}),
      createdAt: project.createdAt,
      ...(key
        ? { credentials: { apiKeyId: key.apiKeyId, apiKeySecret: key.apiKeySecret!, ...(project.walletSecret ? { walletSecret: project.walletSecret } : {}) } }
        : {}),
      ...(Object.keys(project.settings).length > 0 ? { settings: structuredClone(project.settings) } : {}),
      ...(Object.keys(meta).length > 0 ? { meta: structuredClone(meta) } : {}),
      records,
    });
  }
  return { version: 1, clock: { now: clock.iso() }, projects };
}
