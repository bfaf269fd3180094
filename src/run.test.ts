import { afterEach, describe, expect, it, vi } from "vitest";
import { OPTIONS, runCommand } from "./run.js";

describe("cdp-sandbox run --help", () => {
  afterEach(() => vi.restoreAllMocks());

  it("names every option run accepts", async () => {
    let printed = "";
    vi.spyOn(process.stdout, "write").mockImplementation((chunk) => {
      printed += String(chunk);
      return true;
    });
    expect(await runCommand(["--help"])).toBe(0);
    const named = new Set(printed.match(/--[a-z-]+/g));
    expect(Object.keys(OPTIONS).filter((name) => !named.has(`--${name}`))).toEqual([]);
  });
});
