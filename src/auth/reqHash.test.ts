import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { canonicalJsonOrSha256, canonicalSha256, reqHashOf } from "./reqHash.js";

/** The client's rule, written out here on its own: keys sorted at every depth, JSON.stringify, SHA-256. */
function expected(value: unknown, prefix = ""): string {
  const sort = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(sort)
      : v !== null && typeof v === "object"
        ? Object.fromEntries(
            Object.keys(v)
              .sort()
              .map((k) => [k, sort((v as Record<string, unknown>)[k])]),
          )
        : v;
  return createHash("sha256")
    .update(prefix + JSON.stringify(sort(value)))
    .digest("hex");
}

const pair = "\u{1F600}"; // two UTF-16 units: a high then a low surrogate
const bodies: unknown[] = [
  { b: 1, a: [true, null, -0, 1.5e300, "x"], __proto__x: {} },
  JSON.parse('{"__proto__": {"z": 1, "y": "\\u0000\\u001f\\"\\\\"}, "k": []}'),
  { message: `${"a".repeat(9)}${pair}${"b".repeat(7)}${pair}` },
  { [`long key ${pair.repeat(6)}`]: [`${pair}${"é".repeat(20)}`, "\ud800 lone", "lone \udc00"], n: [1, 2, 3] },
  "just a string \ud83d",
  [[[]], {}, ""],
];

describe("canonicalSha256", () => {
  it("hashes the same bytes as the one-piece hash, whatever the piece size (pairs never cut, lone halves escaped)", async () => {
    for (const body of bodies) {
      for (const pieceChars of [2, 3, 5, 8, 64, 262_144]) {
        expect(await canonicalSha256(body, "", pieceChars)).toBe(expected(body));
        expect(await canonicalSha256(body, "POST\n/x\n", pieceChars)).toBe(expected(body, "POST\n/x\n"));
      }
      expect(reqHashOf(body)).toBe(expected(body));
    }
  });

  it("lets the event loop run while it hashes a body whose strings are long", async () => {
    const body = { allowance: "7".repeat(1_000_000), note: pair.repeat(200_000) };
    let turns = 0;
    let done = false;
    const tick = () => {
      turns++;
      if (!done) setImmediate(tick);
    };
    setImmediate(tick);
    const digest = await canonicalSha256(body);
    done = true;
    expect(digest).toBe(expected(body));
    expect(turns).toBeGreaterThan(0);
  });
});

describe("canonicalJsonOrSha256", () => {
  it("is the canonical JSON of a short body and the hash of it for a long one", async () => {
    expect(await canonicalJsonOrSha256({ b: [1, "x"], a: null }, 100)).toBe('{"a":null,"b":[1,"x"]}');
    const long = { to: "0xabc", amount: "9".repeat(5_000) };
    expect(await canonicalJsonOrSha256(long, 4_096)).toBe(`sha256:${expected(long)}`);
    // Many short values count too: the key stays short whatever the body's shape.
    const many = { ids: Array.from({ length: 5_000 }, (_, i) => i) };
    expect(await canonicalJsonOrSha256(many, 4_096)).toBe(`sha256:${expected(many)}`);
  });
});
