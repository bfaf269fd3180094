import { describe, expect, it } from "vitest";
import { cutAfter } from "./firstRefusal.js";

describe("a refused body as far as its first refusal", () => {
  it("cuts each array on the way to the first problem after the item that holds it, and nothing else", () => {
    const body = { scope: "account", rules: [{ criteria: [1, 2, 3] }, { criteria: [4] }], other: [5, 6, 7] };
    expect(cutAfter(body, "/rules/0/criteria/1")).toEqual({ scope: "account", rules: [{ criteria: [1, 2] }], other: [5, 6, 7] });
    expect(body.rules).toHaveLength(2); // the body itself is left as it was
  });

  it("answers the body itself when no array is cut, or the pointer leads nowhere", () => {
    const body = { rules: [{ a: 1 }, { a: 2 }] };
    expect(cutAfter(body, "/rules/1/a")).toBe(body);
    expect(cutAfter(body, "/rules/7")).toBe(body);
    expect(cutAfter(body, "")).toBe(body);
  });

  it("keeps a member named __proto__ a member, and reads ~1 and ~0 in the pointer", () => {
    const body = JSON.parse('{"__proto__": {"a/b": [1, 2]}}');
    const cut = cutAfter(body, "/__proto__/a~1b/0") as Record<string, unknown>;
    expect(Object.hasOwn(cut, "__proto__")).toBe(true);
    expect(JSON.stringify(cut)).toBe('{"__proto__":{"a/b":[1]}}');
  });
});
