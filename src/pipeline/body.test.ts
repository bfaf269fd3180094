/** The depth check reads a body's structure, not its strings' characters one by one; the same pass finds a number too large to represent. */
import { describe, expect, it, vi } from "vitest";
import { arrayMembersOver, nestsDeeperThan, parseBody } from "./body.js";

describe("the body's depth check", () => {
  it("counts brackets outside strings only, escaped quotes included", () => {
    expect(nestsDeeperThan('[[["a"]]]', 2)).toBe(true);
    expect(nestsDeeperThan('[[["a"]]]', 3)).toBe(false);
    expect(nestsDeeperThan('{"a":"[[[[","b":1}', 1)).toBe(false);
    expect(nestsDeeperThan('{"a":"\\"[[[[","b":1}', 1), "an escaped quote does not end the string").toBe(false);
    expect(nestsDeeperThan('{"a":"\\\\","b":[[1]]}', 2), "an escaped backslash before the closing quote").toBe(true);
    expect(nestsDeeperThan('{"a":"\\\\\\"[[[","b":1}', 1)).toBe(false);
    expect(nestsDeeperThan('["unterminated [[[[', 1)).toBe(false);
  });

  it("skips a long string value without reading it a character at a time", () => {
    const text = `{"name":${JSON.stringify("x".repeat(100_000))},"list":[[1]]}`;
    const reads = vi.spyOn(String.prototype, "charCodeAt");
    try {
      expect(nestsDeeperThan(text, 1)).toBe(true);
      expect(reads.mock.calls.length).toBeLessThan(100);
    } finally {
      reads.mockRestore();
    }
  });
});

describe("a number JSON.parse would read as Infinity", () => {
  it("is refused where it is a number, found by the depth check's pass outside strings", () => {
    for (const huge of ["1".repeat(400), "1e400", "-2.5E+999", "3e+308"]) {
      expect(() => parseBody(Buffer.from(`{"amount":${huge}}`), "application/json"), huge).toThrow(/number too large/);
    }
    // An exponent below -307 underflows to 0, and digits inside strings are text: both accepted as before.
    expect(parseBody(Buffer.from(`{"a":1e-400,"b":"1e400","c":"${"9".repeat(400)}"}`), "application/json")).toEqual({
      a: 0,
      b: "1e400",
      c: "9".repeat(400),
    });
    expect(parseBody(Buffer.from('{"a":1e30,"b":true,"c":[12,123456]}'), "application/json")).toEqual({ a: 1e30, b: true, c: [12, 123456] });
  });

  it("is looked for without a regular expression over the whole text (a 4 MB string was read at every position)", () => {
    const text = `{"walletSecretId":${JSON.stringify("x".repeat(4_000_000))}}`;
    const tests = vi.spyOn(RegExp.prototype, "test");
    try {
      expect((parseBody(Buffer.from(text), "application/json") as { walletSecretId: string }).walletSecretId).toHaveLength(4_000_000);
      expect(tests.mock.calls.filter(([input]) => String(input).length > 1_000)).toEqual([]);
    } finally {
      tests.mockRestore();
    }
  });
});

describe("the body's text", () => {
  it("reads ASCII and UTF-8 alike (the ASCII path skips decoding), and refuses broken JSON as before", () => {
    expect(parseBody(Buffer.from('{"name":"plain"}'), "application/json")).toEqual({ name: "plain" });
    expect(parseBody(Buffer.from('{"name":"né ✓ 😀"}'), "application/json")).toEqual({ name: "né ✓ 😀" });
    expect(() => parseBody(Buffer.from('{"name":'), "application/json")).toThrow(/Malformed JSON body/);
  });
});

describe("arrayMembersOver", () => {
  const spans = (text: string, min = 0) => arrayMembersOver(text, min)?.map(([a, b]) => text.slice(a, b));

  it("cuts an array's members outside strings, spaces kept, and only past `min` of them", () => {
    expect(spans(' [1, "a,]\\"[", {"b": [2, 3]} , [] ]\n')).toEqual(["1", ' "a,]\\"["', ' {"b": [2, 3]} ', " [] "]);
    expect(spans("[1,2,3]", 3)).toBeUndefined();
    expect(spans("[1,2,3,4]", 3)).toEqual(["1", "2", "3", "4"]);
    expect(spans("[]")).toEqual([""]);
  });

  it("finds no members in anything but one array whose brackets balance", () => {
    for (const text of ['{"a": [1, 2]}', "1", "", "  ", "[1],[2]", "[1]]", "[[1]", "[1] x"]) {
      expect(spans(text), text).toBeUndefined();
    }
  });
});
