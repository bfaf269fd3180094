/**
 * Reading the data file at start: through its index when one describes this very file (the collections left
 * unparsed until read: unparsed.ts), else the whole document parsed and checked, its strings shared, and the
 * parse's garbage collected before the server listens.
 */
import { checkDataDocument } from "./dataFile.js";
import { readWithIndex } from "./dataIndex.js";
import { shareLoadedStrings } from "./shareStrings.js";
import type { SnapshotFile } from "./snapshotFile.js";
import { emptyState, type SandboxState } from "./state.js";
import { defineUnparsed } from "./unparsed.js";

/** The state held by `file` (an empty one when there is none), and how many characters were parsed to get it. */
export async function loadState(file: string, snapshot: SnapshotFile<SandboxState>): Promise<{ state: SandboxState; parsedChars: number }> {
  const indexed = throughIndex(file, snapshot);
  if (indexed) return indexed;
  const document = await snapshot.readDocument();
  // Checked before anything is written: a file that is not a data file is refused as it is.
  const state = document === undefined ? emptyState() : checkDataDocument(document, file);
  shareLoadedStrings(Object.values(state.projects).flatMap((project) => Object.values(project.data)));
  return { state, parsedChars: snapshot.bytesRead };
}

/** The state with its collections unparsed, or undefined when the index does not fit the document it was read with. */
function throughIndex(file: string, snapshot: SnapshotFile<SandboxState>): { state: SandboxState; parsedChars: number } | undefined {
  const indexed = readWithIndex(file);
  if (!indexed) return undefined;
  const { document, version, collections } = indexed;
  let state: SandboxState | undefined;
  try {
    state = checkDataDocument(document, file);
  } catch {
    // The whole parse refuses it with the same message, or finds the index was wrong.
  }
  const seen = new Set<string>();
  const fits =
    state !== undefined &&
    collections.every(({ projectId, name }) => {
      const key = JSON.stringify([projectId, name]);
      const project = Object.hasOwn(state!.projects, projectId) ? state!.projects[projectId]! : undefined;
      const placeholder = project && Object.hasOwn(project.data, name) ? project.data[name] : undefined;
      if (seen.has(key) || placeholder === undefined || Object.keys(placeholder).length > 0) return false;
      seen.add(key);
      return true;
    });
  if (!fits) {
    version.close();
    return undefined;
  }
  for (const layout of collections) defineUnparsed(state!.projects[layout.projectId]!.data, { ...layout, version });
  if (collections.length === 0) version.close();
  else snapshot.readFrom(version);
  return { state: state!, parsedChars: 0 };
}
