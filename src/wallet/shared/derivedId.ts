/**
 * UUID-shaped ids derived from a seed string, for ids that must be the same
 * every time for a given project (its entity, its seeded payment methods)
 * without storing or drawing anything.
 *
 * @example derivedUuid(`entity/${projectId}`) // → "6b1f9e2a-3c4d-4e5f-8a9b-0c1d2e3f4a5b"-shaped, stable
 */
import { sha256 } from "@noble/hashes/sha2.js";

export function derivedUuid(seed: string): string {
  const h = Buffer.from(sha256(new TextEncoder().encode(seed))).toString("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${((parseInt(h[16]!, 16) & 3) | 8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}
