/**
 * The data file's snapshot keeps each record on a line of its own and is still one JSON document: a start reads it
 * a piece at a time and gets back exactly the state that was written, whatever the ids and values hold. A file of
 * the older layout (records inside the document) loads as before.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { SandboxState } from "./state.js";
import { loadState, statePieces } from "./stateLayout.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "cdp-sandbox-layout-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A state with the ids and values that could trip a line reader: quotes, backslashes, newlines, non-ASCII, `__proto__`. */
function state(big = 0): SandboxState {
  const awkward: Record<string, unknown> = {};
  for (const id of ["plain", 'quote"d', "back\\slash", "new\nline", "ünïcødé 🙂", "constructor", "\ttab"]) {
    awkward[id] = { id, text: `line one\nline two\t"${id}"`, nested: { list: [1, "two", { three: null }] }, emoji: "🙂" };
  }
  Object.defineProperty(awkward, "__proto__", { value: { id: "__proto__" }, enumerable: true, writable: true, configurable: true });
  const many: Record<string, unknown> = {};
  // Records of several kilobytes each, many megabytes in all: lines cross the pieces the file is read in.
  for (let i = 0; i < big; i++) many[`r${i}`] = { i, pad: "ü".repeat(1000 + (i % 7)) };
  return {
    format: "cdp-sandbox-state",
    version: 1,
    defaultProjectId: "p",
    starts: 2,
    projects: {
      p: {
        id: "p",
        name: "P",
        createdAt: "2026-01-01T00:00:00.000Z",
        settings: { a: 1 },
        apiKeys: [{ apiKeyId: "k", verified: true }],
        data: { awkward, empty: {}, one: { x: { n: 1 } }, many },
      },
      q: { id: "q", name: "Q", createdAt: "2026-01-01T00:00:00.000Z", settings: {}, apiKeys: [], data: {} },
    },
  };
}

const file = (text: string) => {
  const path = join(dir, "state.json");
  writeFileSync(path, text);
  return path;
};
const written = (s: SandboxState) => [...statePieces(s)].join("");

describe("the data file's layout", () => {
  it("is one JSON document holding the state, with each record on a line of its own", () => {
    const text = written(state(3));
    expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(state(3))));
    expect(text.split("\n").filter((line) => line.startsWith("\t"))).toHaveLength(12);
  });

  it("reads back exactly the state written, in the same order, across the pieces it is read in", () => {
    const loaded = loadState(file(written(state(10_000))))!;
    expect(loaded).toEqual(state(10_000));
    expect(Object.keys(loaded.projects.p!.data.awkward!)).toEqual(Object.keys(state().projects.p!.data.awkward!));
    expect(Object.keys(loaded.projects.p!.data.many!).slice(0, 3)).toEqual(["r0", "r1", "r2"]);
    expect(Object.hasOwn(loaded.projects.p!.data.awkward!, "__proto__")).toBe(true);
  });

  it("loads a data file of the older layout, records inside the document", () => {
    expect(loadState(file(JSON.stringify(state())))).toEqual(state());
    expect(loadState(file(JSON.stringify(state(), null, 2)))).toEqual(state());
  });

  it("starts a new state when the file is missing or empty, and refuses a cut record or text that is not JSON, naming the file", () => {
    expect(loadState(join(dir, "absent.json"))).toBeUndefined();
    expect(loadState(file(" \n"))).toBeUndefined();
    const cut = written(state()).replace(/("one":\{\n\t"x":\{"n":1)\}/, "$1");
    const path = file(cut);
    expect(() => loadState(path)).toThrow(`${path} is not a cdp-sandbox data file: it is not valid JSON (the record "x"`);
    expect(() => loadState(file("{nope"))).toThrow(/is not a cdp-sandbox data file: it is not valid JSON \(the document/);
  });
});
