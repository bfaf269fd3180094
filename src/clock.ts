/**
 * The sandbox clock. Every domain timestamp and expiry (fee quotes, delegation
 * grants, idempotency keys, blocks) reads it, so tests can travel in time
 * without sleeping. Auth tokens deliberately do NOT use it: they are checked
 * against the machine's wall clock, as the platform does.
 *
 * Model: sandbox time = (frozen ? frozenAt : wall now) + offset.
 *
 * @example
 *   const clock = createClock(); clock.advance(15 * 60_000); clock.now();
 */
export interface Clock {
  /** Milliseconds since the epoch, sandbox time. */
  now(): number;
  /** ISO-8601 UTC of `now()`. */
  iso(): string;
  /** Jump to a point in time (keeps the frozen state). */
  set(ms: number): void;
  /** Move forward (or back, with a negative value). */
  advance(ms: number): void;
  /** Stop or restart the flow of time at the current instant. */
  freeze(frozen: boolean): void;
  readonly frozen: boolean;
  /** Called after every set/advance/freeze, so time-driven state can settle. */
  onChange(listener: () => void): () => void;
}

export function createClock(wallNow: () => number = Date.now): Clock {
  let offset = 0;
  let frozenAt: number | undefined;
  const listeners = new Set<() => void>();
  const base = () => (frozenAt === undefined ? wallNow() : frozenAt);
  const changed = () => {
    for (const l of listeners) l();
  };
  return {
    now: () => base() + offset,
    iso: () => new Date(base() + offset).toISOString(),
    set(ms) {
      offset = ms - base();
      changed();
    },
    advance(ms) {
      offset += ms;
      changed();
    },
    freeze(frozen) {
      if (frozen && frozenAt === undefined) frozenAt = wallNow();
      if (!frozen && frozenAt !== undefined) {
        // keep sandbox time continuous across the unfreeze
        offset += frozenAt - wallNow();
        frozenAt = undefined;
      }
      changed();
    },
    get frozen() {
      return frozenAt !== undefined;
    },
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** Parses durations such as "15m", "1h30m", "90s", "250ms" or a number of milliseconds. */
export function parseDuration(input: string | number): number | undefined {
  if (typeof input === "number") return Number.isFinite(input) ? input : undefined;
  const text = input.trim();
  if (/^-?\d+$/.test(text)) return Number(text);
  const sign = text.startsWith("-") ? -1 : 1;
  const body = text.replace(/^[-+]/, "");
  const parts = [...body.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h|d|w)/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join("") !== body) return undefined;
  return sign * parts.reduce((sum, [, n, unit]) => sum + Number(n) * UNITS[unit], 0);
}
