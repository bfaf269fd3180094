/**
 * A contract of the user's own (`--spec`) is compiled at run time: its maxLength counts code points natively too,
 * as the build's validators do (a file of its own: preparing prism's Ajv changes it for the rest of the file).
 */
import { createRequire } from "node:module";
import { describe, expect, it, vi } from "vitest";
import { preparePrismAjv } from "./ajv.js";

describe("maxLength's count in schemas compiled at run time", () => {
  it("is the count of schemas compiled at run time too (a contract of the user's own), reading a long value natively", async () => {
    const prismRequire = createRequire(createRequire(import.meta.url).resolve("@stoplight/prism-http/dist/validator/index.js"));
    preparePrismAjv(prismRequire);
    const Ajv = (prismRequire("ajv") as { default: new (o: object) => { compile(s: object): (d: unknown) => boolean } }).default;
    // A schema no build has precompiled: Ajv writes its code now.
    const validate = new Ajv({ allErrors: false }).compile({ type: "string", maxLength: 99_999, minLength: 3, description: "user's own" });
    expect(validate("😀".repeat(50_000))).toBe(true); // 50,000 code points in 100,000 code units
    const reads = vi.spyOn(String.prototype, "charCodeAt");
    try {
      expect(validate("x".repeat(100_000))).toBe(false);
      // Before, Ajv's count read the value a character at a time.
      expect(reads.mock.calls.length).toBeLessThan(100);
    } finally {
      reads.mockRestore();
    }
  });
});
