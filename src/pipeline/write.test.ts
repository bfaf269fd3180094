import { createServer, type ServerResponse } from "node:http";
import request from "supertest";
import { describe, expect, it } from "vitest";
import type { Outgoing } from "./exchange.js";
import { sendOutgoing } from "./write.js";

/** A server that answers every request with `out`, after `before` set what it sets (as CORS does). */
const serving = (out: Outgoing, before?: (res: ServerResponse) => void) =>
  createServer((_req, res) => {
    before?.(res);
    sendOutgoing(res, out);
  });

describe("writing an answer", () => {
  const json = { status: 201, headers: { "content-type": "application/json", "x-correlation-id": "abc-SBX" }, bodyText: '{"ok":"é"}' };

  it("sends status, headers with the UTF-8 charset and the body's length in bytes", async () => {
    const res = await request(serving(json)).get("/");
    expect(res.status).toBe(201);
    expect(res.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect(res.headers["content-length"]).toBe("11");
    expect(res.headers["x-correlation-id"]).toBe("abc-SBX");
    expect(res.body).toEqual({ ok: "é" });
  });

  it("keeps headers set on the response before, and lets the answer's own replace them", async () => {
    const res = await request(
      serving(json, (r) => {
        r.setHeader("Access-Control-Allow-Origin", "https://app.example");
        r.setHeader("X-Correlation-Id", "earlier");
      }),
    ).get("/");
    expect(res.headers["access-control-allow-origin"]).toBe("https://app.example");
    expect(res.headers["x-correlation-id"]).toBe("abc-SBX");
  });

  it("takes header names in any case, the later winning, and sends no body to HEAD or with 204", async () => {
    const mixed = { ...json, headers: { "Content-Type": "text/plain", "content-type": "application/problem+json", "Retry-After": "3" } };
    const res = await request(serving(mixed)).get("/");
    expect(res.headers["content-type"]).toBe("application/problem+json; charset=utf-8");
    expect(res.headers["retry-after"]).toBe("3");
    const head = await request(serving(json)).head("/");
    expect(head.headers["content-length"]).toBe("11");
    expect(head.text ?? "").toBe("");
    const empty = await request(serving({ ...json, status: 204 })).get("/");
    expect(empty.headers["content-length"]).toBeUndefined();
    expect(empty.text).toBe("");
  });
});
