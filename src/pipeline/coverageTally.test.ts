import { describe, expect, it } from "vitest";
import { CoverageTally } from "./coverageTally.js";

const unknownRoute = (i: number) => ({
  kind: "platform",
  correlationId: `c${i}-SBX`,
  method: "GET",
  path: `/platform/v2/no-such-${i}`,
  status: 404,
  errorType: "not_found",
  problems: [],
  scenarios: [],
  violation: "route" as const,
});

describe("the coverage tally", () => {
  it("counts the same violation once with its first correlation id, and skips the admin door", () => {
    const tally = new CoverageTally();
    tally.count("p", unknownRoute(1), "No operation of the API serves GET /platform/v2/no-such-1.");
    tally.count("p", { ...unknownRoute(1), correlationId: "later-SBX" }, "No operation of the API serves GET /platform/v2/no-such-1.");
    tally.count("p", { ...unknownRoute(2), kind: "admin" }, "not counted");
    const violations = [...tally.all().get("p")!.violations.values()];
    expect(violations).toEqual([
      {
        door: "platform",
        operation: "GET /platform/v2/no-such-1",
        check: "route",
        status: 404,
        errorType: "not_found",
        problems: ["No operation of the API serves GET /platform/v2/no-such-1."],
        count: 2,
        correlationId: "c1-SBX",
      },
    ]);
  });

  it("keeps at most 1,000 distinct violations of a project and counts the rest together, so no caller grows it without end", () => {
    const tally = new CoverageTally();
    for (let i = 0; i < 1_005; i++) tally.count("p", unknownRoute(i), `path ${i}`);
    const violations = [...tally.all().get("p")!.violations.values()];
    expect(violations).toHaveLength(1_001);
    expect(violations.at(-1)).toMatchObject({ operation: "(more distinct violations)", count: 5, correlationId: "c1000-SBX" });
    expect(violations.reduce((n, v) => n + v.count, 0)).toBe(1_005);
  });
});
