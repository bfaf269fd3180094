/**
 * The `metadata` of transfers and deposit destinations: at most 10 entries,
 * keys of at most 40 characters, values of at most 500. The contract states
 * the entry and value limits (checked before a handler runs, see
 * src/errors/validationCases.ts); the key limit is only the platform's, so
 * handlers check it here. Each limit has its own errorType.
 */
import { apiError } from "../../errors/catalogue.js";

const METADATA_LIMITS = { entries: 10, keyLength: 40, valueLength: 500 } as const;

export function checkMetadata(metadata: Record<string, string> | undefined): void {
  if (!metadata) return;
  const entries = Object.entries(metadata);
  if (entries.length > METADATA_LIMITS.entries) {
    throw apiError("metadata_too_many_entries", `metadata has ${entries.length} entries; at most ${METADATA_LIMITS.entries} are allowed.`);
  }
  for (const [key, value] of entries) {
    if (key.length > METADATA_LIMITS.keyLength) {
      throw apiError(
        "metadata_key_too_long",
        `metadata key '${key.slice(0, 50)}…' is ${key.length} characters long; keys may have at most ${METADATA_LIMITS.keyLength}.`,
      );
    }
    if (value.length > METADATA_LIMITS.valueLength) {
      throw apiError(
        "metadata_value_too_long",
        `metadata value of '${key}' is ${value.length} characters long; values may have at most ${METADATA_LIMITS.valueLength}.`,
      );
    }
  }
}
