import { describe, expect, it } from "vitest";
import type { Exchange } from "./exchange.js";
import { Journal } from "./journal.js";

const exchange = (i: number, projectId: string): Exchange =>
  ({
    correlationId: `c${i}`,
    receivedAt: 1_700_000_000_000 + i,
    method: "GET",
    fullPath: "/platform/v2/evm/accounts",
    projectId,
    auth: { kind: "apiKey", keyId: "k", verified: true },
    problems: [],
    scenarios: [],
    mock: false,
    idempotentReplay: false,
    response: { status: 200, headers: {} },
  }) as unknown as Exchange;

describe("the request journal", () => {
  it("keeps each project's most recent requests up to its capacity, oldest first", () => {
    const journal = new Journal(100);
    for (let i = 0; i < 1000; i++) journal.record(exchange(i, i % 2 === 0 ? "even" : "odd"), 1_700_000_000_000 + i);
    const even = journal.list("even");
    expect(even).toHaveLength(100);
    expect(even[0]!.correlationId).toBe("c800");
    expect(even.at(-1)!.correlationId).toBe("c998");
    const all = journal.list();
    expect(all).toHaveLength(200);
    expect(all.map((e) => e.correlationId).slice(0, 2)).toEqual(["c800", "c801"]);
  });
});
