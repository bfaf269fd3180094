/**
 * Terms of Service versions a project's customers must accept. Every project starts with one version that is
 * required at once; the sandbox's admin API publishes more (POST /_sandbox/terms-of-service), optionally with a
 * deadline: until the deadline passes, a version not yet accepted is a non-blocking grace (`due`); after it,
 * the `tos` requirement is `past_due` and blocks the capabilities it covers. A version without a deadline blocks
 * at once. Acceptances name a version and one of its languages.
 */
import { apiError } from "../../errors/catalogue.js";
import { declareCollection } from "../../store/collections.js";
import type { ProjectTx } from "../../store/store.js";

export interface TermsVersion {
  versionId: string;
  languages: string[];
  url: string;
  /** ISO time: the end of the grace period; absent when acceptance is required at once. */
  deadline?: string;
}

/** The version every customer accepts for custody, trading and fiat transfers. */
const TERMS: TermsVersion = {
  versionId: "us_individual_2026-05-29",
  languages: ["en", "es"],
  url: "https://docs.cdp.coinbase.com/legal/terms/us_individual",
};

const PUBLISHED_TERMS = declareCollection<TermsVersion>("termsOfService", { order: "insertion" });

/** The versions the project's customers must accept, the first one first. */
export function termsOf(store: ProjectTx): TermsVersion[] {
  return [TERMS, ...store.collection(PUBLISHED_TERMS).list()];
}

/** Whether a version without a deadline, or whose deadline has passed, blocks what it covers on `nowMs`. */
export const blocksNow = (v: TermsVersion, nowMs: number): boolean => v.deadline === undefined || Date.parse(v.deadline) <= nowMs;

/** Publishes a version (sandbox-only); 400 for an id already published or a malformed deadline. */
export function publishTerms(store: ProjectTx, input: { versionId: string; deadline?: string; languages?: string[]; url?: string }): TermsVersion {
  if (termsOf(store).some((v) => v.versionId === input.versionId)) {
    throw apiError("invalid_request", `Terms of Service version '${input.versionId}' is already published.`);
  }
  if (input.deadline !== undefined && Number.isNaN(Date.parse(input.deadline))) {
    throw apiError("invalid_request", `deadline '${input.deadline}' is not an ISO 8601 time.`);
  }
  const version: TermsVersion = {
    versionId: input.versionId,
    languages: input.languages ?? ["en"],
    url: input.url ?? `https://docs.cdp.coinbase.com/legal/terms/${encodeURIComponent(input.versionId)}`,
    ...(input.deadline !== undefined ? { deadline: new Date(Date.parse(input.deadline)).toISOString() } : {}),
  };
  store.collection(PUBLISHED_TERMS).put(version.versionId, version);
  return version;
}
