/**
 * The fuzzer's randomness: one seed decides every draw (which operation, which
 * mutation, the faker's values, the tokens' nonces), so a run is repeated by
 * giving the same --seed. sfc32, seeded from the SHA-256 of the seed text.
 */
import { createHash } from "node:crypto";

/**
 * @param {string} seed
 * @example
 *   const rng = seededRandom("fuzz-1");
 *   rng.pick(["a", "b"]);
 */
export function seededRandom(seed) {
  const h = createHash("sha256").update(String(seed)).digest();
  let a = h.readUInt32LE(0);
  let b = h.readUInt32LE(4);
  let c = h.readUInt32LE(8);
  let d = h.readUInt32LE(12);
  const float = () => {
    a >>>= 0;
    b >>>= 0;
    c >>>= 0;
    d >>>= 0;
    let t = (a + b) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    d = (d + 1) | 0;
    t = (t + d) | 0;
    c = (c + t) | 0;
    return (t >>> 0) / 4294967296;
  };
  const int = (n) => Math.floor(float() * n);
  return {
    float,
    int,
    chance: (p) => float() < p,
    /** @template T @param {readonly T[]} list @returns {T} */
    pick: (list) => list[int(list.length)],
    hex: (bytes) => Array.from({ length: bytes }, () => int(256).toString(16).padStart(2, "0")).join(""),
    uuid() {
      const x = this.hex(16);
      return `${x.slice(0, 8)}-${x.slice(8, 12)}-4${x.slice(13, 16)}-a${x.slice(17, 20)}-${x.slice(20, 32)}`;
    },
    /** Picks a key of `weights` with probability proportional to its value. */
    weighted(weights) {
      const entries = Object.entries(weights).filter(([, w]) => w > 0);
      let r = float() * entries.reduce((s, [, w]) => s + w, 0);
      for (const [key, w] of entries) {
        r -= w;
        if (r < 0) return key;
      }
      return entries[entries.length - 1][0];
    },
  };
}
