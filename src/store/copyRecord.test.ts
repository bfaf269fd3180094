import { describe, expect, it } from "vitest";
import { copyRecord } from "./copyRecord.js";

const record = {
  id: "0x52908400098527886E0F7030069857D2E4169EE7",
  name: "treasury",
  policies: ["7d5c2a1e-0d4f-4b5b-9a41-5a1d0f0f1c11"],
  amount: 10n ** 24n,
  nested: { list: [1, "two", null, false, { deep: [] }], empty: {}, missing: undefined },
  // biome-ignore lint/suspicious/noSparseArray: a hole must stay a hole in the copy
  sparse: [1, , 3],
  createdAt: "2026-11-29T00:00:00.000Z",
};

describe("the copy a store read hands out", () => {
  it("equals structuredClone's copy of a plain record, member for member and in order", () => {
    const copy = copyRecord(record);
    expect(copy).toStrictEqual(structuredClone(record));
    expect(Object.keys(copy.nested)).toEqual(["list", "empty", "missing"]);
    expect(1 in copy.sparse).toBe(false);
  });

  it("shares no object with the record: changing the copy leaves the record as it was", () => {
    const copy = copyRecord(record);
    copy.nested.list.push("more");
    (copy.nested.list[4] as { deep: unknown[] }).deep.push(1);
    copy.policies[0] = "changed";
    expect(record.nested.list).toHaveLength(5);
    expect(record.nested.list[4]).toEqual({ deep: [] });
    expect(record.policies[0]).toBe("7d5c2a1e-0d4f-4b5b-9a41-5a1d0f0f1c11");
  });

  it("keeps an own __proto__ member a member, not the copy's prototype", () => {
    const parsed = JSON.parse('{"__proto__": {"polluted": true}, "a": 1}') as Record<string, unknown>;
    const copy = copyRecord(parsed);
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect((copy as { polluted?: boolean }).polluted).toBeUndefined();
    expect(Object.hasOwn(copy, "__proto__")).toBe(true);
    expect(copy).toStrictEqual(structuredClone(parsed));
  });

  it("copies what is not plain data as structuredClone does, and refuses a function as it does", () => {
    const bytes = new Uint8Array([1, 2, 3]);
    const when = new Date(0);
    const copy = copyRecord({ bytes, when, tags: new Set(["a"]) });
    expect(copy.bytes).toStrictEqual(bytes);
    expect(copy.bytes).not.toBe(bytes);
    expect(copy.when).toStrictEqual(when);
    expect(copy.when).not.toBe(when);
    expect(copy.tags).toStrictEqual(new Set(["a"]));
    expect(() => copyRecord({ f: () => 1 })).toThrow(/could not be cloned/);
  });
});
