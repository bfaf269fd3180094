/**
 * A seedable source of randomness. Domains take it from `ctx.random` so that
 * `--seed S` makes credentials, ids and keys reproducible; unseeded, it draws
 * from the operating system's CSPRNG.
 *
 * @example
 *   const r = createRandom("demo"); r.uuid(); // same value on every run
 */
import { hash, randomBytes as osRandomBytes } from "node:crypto";
import { createRequire } from "node:module";

export interface Random {
  /** `n` random bytes. */
  bytes(n: number): Uint8Array;
  /** Lowercase hex of `n` random bytes. */
  hex(n: number): string;
  /** A version-4 UUID. */
  uuid(): string;
  /** A float in [0, 1). */
  float(): number;
  /** An integer in [0, max). */
  int(max: number): number;
  /** A child source whose stream depends only on this seed and `label` (stable across unrelated draws). */
  fork(label: string): Random;
  /**
   * Where a secret is drawn (a sign-in code, a refresh token, a TOTP secret, a token-signing key): this very stream,
   * or, for a source made with `secretsFromOs`, the operating system's CSPRNG whatever the seed.
   */
  secrets(): Random;
}

export interface RandomOptions {
  /**
   * Secrets come from the operating system even when seeded: a sandbox others reach must not hand out secrets that
   * whoever knows the seed (shared in scripts and repositories) can compute. Ids stay seeded.
   */
  secretsFromOs?: boolean;
}

type Sha256Into = (out: Uint8Array, input: Uint8Array) => void;
let sodiumSha256: Sha256Into | null | undefined;
/** libsodium's SHA-256 (`sodium-native`, loaded by file: a native addon is not bundled), or null where it cannot load. */
function loadSodiumSha256(): Sha256Into | null {
  if (sodiumSha256 === undefined) {
    try {
      sodiumSha256 = (createRequire(import.meta.url)("sodium-native") as { crypto_hash_sha256: Sha256Into }).crypto_hash_sha256;
    } catch {
      sodiumSha256 = null;
    }
  }
  return sodiumSha256;
}

/**
 * The stream's block `counter`: SHA-256 of the seed, a NUL and the counter in decimal, as UTF-8. With libsodium the
 * text's bytes are written into one buffer kept from block to block and hashed into the pool in place: ~1.3 µs a
 * block against ~2.7 µs for node:crypto's one-shot hash of a new string, and an init file of 100,000 accounts draws
 * 100,000 blocks before the first key can be derived. The same bytes either way.
 */
function blockWriter(seed: string): (counter: number, into: Uint8Array, at: number) => void {
  const sha256 = loadSodiumSha256();
  if (!sha256) return (counter, into, at) => into.set(hash("sha256", `${seed}\u0000${counter}`, "buffer"), at);
  const prefix = Buffer.from(`${seed}\u0000`, "utf8");
  const input = Buffer.alloc(prefix.length + 24); // the prefix, then up to 2^53's 16 digits
  prefix.copy(input);
  const out = new Uint8Array(32);
  let view = input.subarray(0, 0);
  return (counter, into, at) => {
    const length = prefix.length + input.write(String(counter), prefix.length, "latin1");
    if (view.length !== length) view = input.subarray(0, length);
    sha256(out, view);
    into.set(out, at);
  };
}

/**
 * Deterministic stream: SHA-256 in counter mode over the seed. Not for secrets outside the sandbox.
 * `read(n, use)` hands `use` the next `n` bytes where they lie in the pool, without a copy: every correlation id
 * draws from here, and copying the rest of the pool on each draw cost more than the id.
 */
function seededStream(seed: string): <T>(n: number, use: (pool: Uint8Array, offset: number) => T) => T {
  let counter = 0;
  let pool = new Uint8Array(0);
  let offset = 0;
  const writeBlock = blockWriter(seed);
  return (n, use) => {
    if (pool.length - offset < n) {
      // The bytes not yet drawn, then as many blocks as the draw needs: the same stream as one pool grown block by block.
      const blocks = Math.ceil((n - (pool.length - offset)) / 32);
      const next = new Uint8Array(pool.length - offset + blocks * 32);
      next.set(pool.subarray(offset));
      for (let i = 0, at = pool.length - offset; i < blocks; i++, at += 32) writeBlock(counter++, next, at);
      pool = next;
      offset = 0;
    }
    const at = offset;
    offset += n;
    return use(pool, at);
  };
}

/** The same reader over the operating system's CSPRNG: fresh bytes for each draw. */
const osStream = <T>(n: number, use: (pool: Uint8Array, offset: number) => T): T => use(new Uint8Array(osRandomBytes(n)), 0);

/** A version-4 UUID from 16 drawn bytes (changed in place). */
function uuidOf(b: Uint8Array): string {
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = Buffer.from(b).toString("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** A float in [0, 1) from 6 drawn bytes. */
function floatOf(b: Uint8Array): number {
  let v = 0;
  for (const x of b) v = v * 256 + x;
  return v / 2 ** 48;
}

export function createRandom(seed?: string, options: RandomOptions = {}): Random {
  const read = seed === undefined ? osStream : seededStream(seed);
  // A fresh pool is the caller's already; a seeded pool's bytes are copied out, since callers may change them (uuid).
  const draw = (n: number) => read(n, (pool, at) => (at === 0 && pool.length === n ? pool : pool.slice(at, at + n)));
  // Unseeded, this stream is the operating system's already; seeded, it stays itself unless told otherwise (on
  // loopback `--seed` reproduces every secret, as tests expect).
  const secretSource = seed !== undefined && options.secretsFromOs ? createRandom() : undefined;
  const random: Random = {
    bytes: draw,
    hex: (n) => read(n, (pool, at) => Buffer.from(pool.buffer, pool.byteOffset + at, n).toString("hex")),
    uuid: () => uuidOf(draw(16)),
    float: () => floatOf(draw(6)),
    int: (max) => Math.floor(random.float() * max),
    fork: (label) => createRandom(seed === undefined ? undefined : `${seed}/${label}`, options),
    secrets: () => secretSource ?? random,
  };
  return random;
}

/**
 * The source of one start of the sandbox on a kept state (`start`: how many came before). The first start is
 * `createRandom(seed)`; each later one has a stream of its own, derived from the seed and `start`, so that ids drawn
 * after a restart never repeat those already stored.
 *
 * @example
 *   createRandomForStart("demo", 0).uuid() === createRandom("demo").uuid(); // true
 */
export function createRandomForStart(seed: string | undefined, start: number, options: RandomOptions = {}): Random {
  // A NUL no command-line seed can hold, and no fork's label (joined with "/") produces.
  return createRandom(seed === undefined || start === 0 ? seed : `${seed}\u0000start ${start}`, options);
}

/** A source whose draws are `draw`'s, with `base`'s forks and, where `base` keeps its secrets to itself, its secrets. */
function drawingFrom(base: Random, draw: (n: number) => Uint8Array): Random {
  const random: Random = {
    bytes: draw,
    hex: (n) => Buffer.from(draw(n)).toString("hex"),
    uuid: () => uuidOf(draw(16)),
    float: () => floatOf(draw(6)),
    int: (max) => Math.floor(random.float() * max),
    fork: (label) => base.fork(label),
    secrets: () => (base.secrets() === base ? random : base.secrets()),
  };
  return random;
}

/**
 * Draws from `base` ahead of the step that will use them: `ahead` draws as `base` does and keeps what it drew;
 * `replay()` then gives a source that draws those bytes again first, then goes on with `base`'s own. Seeded, the
 * stream gives the same bytes whatever the sizes of the draws, so the replaying source draws exactly what `base`
 * would have drawn had nothing been drawn ahead; unseeded, fresh bytes of the operating system either way.
 * (An init file's account keys are drawn while the rest of the start-up runs, so that their addresses are derived
 * meanwhile; the file's entries then draw from the replay, in their order, as they always did.)
 */
export function drawAhead(base: Random): { ahead: Random; replay(): Random } {
  const drawn: Uint8Array[] = [];
  let replaying = false;
  const ahead = drawingFrom(base, (n) => {
    // A draw ahead after the replay began would come after the bytes replayed: out of the stream's order.
    if (replaying) throw new Error("drawn ahead after the replay began");
    const bytes = base.bytes(n);
    drawn.push(bytes.slice()); // the caller may change its copy (uuid does)
    return bytes;
  });
  return {
    ahead,
    replay() {
      replaying = true;
      let queue = Buffer.concat(drawn);
      drawn.length = 0;
      return drawingFrom(base, (n) => {
        if (queue.length === 0) return base.bytes(n);
        const taken = new Uint8Array(queue.subarray(0, Math.min(n, queue.length)));
        queue = queue.subarray(taken.length);
        if (taken.length === n) return taken;
        const out = new Uint8Array(n);
        out.set(taken);
        out.set(base.bytes(n - taken.length), taken.length);
        return out;
      });
    },
  };
}
