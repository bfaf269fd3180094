/**
 * Who a node URL's last segment names. Two tokens open a project's node:
 * - its client API key (public by design: front-end code embeds it; rotating it retires the old URL at once);
 * - its project id, which is what `GET /apikeys/v1/tokens/active` handed out before client keys existed, so
 *   programs and tests written against that keep working.
 * Anything else, a rotated client key included, is unknown: 401, as the platform answers a bad key.
 */
import type { Store } from "../store/store.js";

/** The part of the project registry the node needs: the client keys' index, and word of a key rotated away. */
export interface ClientKeyIndex {
  projectOfClientKey(clientApiKey: string): string | undefined;
  /** Calls `listener` with each client key rotated away, from now on; returns the function that stops it. */
  onClientKeyRetired(listener: (clientApiKey: string) => void): () => void;
}

export type NodeCaller = { projectId: string; via: "clientApiKey" | "projectId" };

export function nodeCaller(token: string, store: Store, keys: ClientKeyIndex): NodeCaller | undefined {
  const byKey = keys.projectOfClientKey(token);
  if (byKey) return { projectId: byKey, via: "clientApiKey" };
  // A project id is a UUID, never 32 hex characters: it cannot be mistaken for a retired client key.
  if (store.project(token)) return { projectId: token, via: "projectId" };
  return undefined;
}

/** The message of the 401 for a token the node does not know. */
export const UNKNOWN_NODE_TOKEN = "unauthorized: unknown or rotated client API key; get the current one from GET /apikeys/v1/tokens/active";
