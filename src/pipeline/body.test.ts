/** The depth check reads a body's structure, not its strings' characters one by one. */
import { describe, expect, it, vi } from "vitest";
import { nestsDeeperThan } from "./body.js";

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
