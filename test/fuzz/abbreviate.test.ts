/** How the fuzzer writes long values in its reports: runs folded, the rest cut, and no string too long for it. */
import { describe, expect, it } from "vitest";
import { abbreviate } from "../../scripts/fuzz-core.mjs";

describe("the fuzzer's abbreviation of long values", () => {
  it("writes a run of one character, or of a short group, as the unit and its count", () => {
    expect(abbreviate(`x${"a".repeat(5000)}y`)).toBe('x⟨"a"×5000⟩y');
    expect(abbreviate(`{${'"k":'.repeat(40)}}`)).toBe('{⟨"\\"k\\":"×40⟩}');
    expect(abbreviate("a".repeat(23))).toBe("a".repeat(23));
    expect(abbreviate("ab".repeat(11))).toBe("ab".repeat(11));
  });

  it("cuts what is left at the limit and says how long the text was", () => {
    const text = Array.from({ length: 2000 }, (_, i) => String.fromCharCode(65 + (i % 26))).join("");
    expect(abbreviate(text, 100)).toBe(`${text.slice(0, 100)}…(2000 characters)`);
  });

  it("handles the fuzzer's own 4 MB strings without overflowing the stack", () => {
    // The regular expressions it used before threw RangeError: Maximum call stack size exceeded here.
    const mixed = Array.from({ length: 4 * 1024 * 1024 }, (_, i) => (i % 7 === 0 ? "é" : "ab"[i % 2])).join("");
    expect(() => abbreviate(mixed)).not.toThrow();
    expect(abbreviate(`${"a".repeat(4 * 1024 * 1024)}`)).toBe(`⟨"a"×${4 * 1024 * 1024}⟩`);
    expect(abbreviate(mixed).length).toBeLessThan(700);
  });
});
