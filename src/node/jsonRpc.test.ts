/** JSON-RPC framing on its own: single and batch answers in order, unknown methods, thrown errors, bigints. */
import { describe, expect, it } from "vitest";
import { answer, RpcError, stringifyWithBigInts } from "./jsonRpc.js";

const methods = {
  echo: (params: unknown[]) => params[0],
  later: async (params: unknown[]) => params.length,
  refuse: () => {
    throw new RpcError(-32602, "no");
  },
  crash: () => {
    throw new Error("boom");
  },
};
const unknown = (m: string) => `no ${m}`;
/** What a node answers under: its request's store transaction (here a stand-in: no EVM runs). */
const ctx = { store: {} };

describe("the node's JSON-RPC framing", () => {
  it("answers one message, and a batch in order", async () => {
    expect(await answer({ jsonrpc: "2.0", id: 7, method: "echo", params: ["hi"] }, methods, ctx, unknown)).toEqual({ jsonrpc: "2.0", id: 7, result: "hi" });
    const batch = await answer(
      [
        { id: 1, method: "later", params: [1, 2] },
        { id: 2, method: "echo", params: [3] },
      ],
      methods,
      ctx,
      unknown,
    );
    expect(batch).toEqual([
      { jsonrpc: "2.0", id: 1, result: 2 },
      { jsonrpc: "2.0", id: 2, result: 3 },
    ]);
  });

  it("knows only the table's own methods: an inherited member is no method", async () => {
    for (const method of ["constructor", "toString", "hasOwnProperty", "nope"]) {
      expect(await answer({ id: 1, method }, methods, ctx, unknown)).toEqual({ jsonrpc: "2.0", id: 1, error: { code: -32601, message: `no ${method}` } });
    }
  });

  it("turns a method's RpcError into its code, anything else into -32603, and a message without a method into -32600", async () => {
    expect(await answer({ id: 1, method: "refuse" }, methods, ctx, unknown)).toMatchObject({ error: { code: -32602, message: "no" } });
    expect(await answer({ id: 2, method: "crash" }, methods, ctx, unknown)).toMatchObject({ error: { code: -32603, message: "boom" } });
    expect(await answer({ id: 3 }, methods, ctx, unknown)).toMatchObject({ id: 3, error: { code: -32600 } });
    expect(await answer(null, methods, ctx, unknown)).toMatchObject({ id: null, error: { code: -32600 } });
  });

  it("writes bigints as plain JSON integers, exactly", () => {
    expect(stringifyWithBigInts({ rentEpoch: 2n ** 64n - 1n, n: 1 })).toBe('{"rentEpoch":18446744073709551615,"n":1}');
  });
});
