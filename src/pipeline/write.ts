/**
 * Writes the outgoing response, or carries out a network fault a scenario asked
 * for (reset the connection, hang, close after the headers, truncate the body).
 */
import type { Response } from "express";
import type { Exchange } from "./exchange.js";

export async function writeOutgoing(res: Response, ex: Exchange): Promise<void> {
  const out = ex.response!;
  const socket = res.socket;
  switch (ex.fault) {
    case "reset":
      socket?.resetAndDestroy?.() ?? socket?.destroy();
      return;
    case "hang":
      // Keep the connection open with nothing sent until the client gives up.
      await new Promise<void>((resolve) => res.on("close", () => resolve()));
      return;
    case "close-after-headers":
      res.writeHead(out.status, out.headers);
      res.flushHeaders();
      socket?.destroy();
      return;
    case "truncate": {
      const text = out.bodyText ?? "";
      res.writeHead(out.status, { ...out.headers, "content-length": String(Buffer.byteLength(text)) });
      res.write(text.slice(0, Math.max(1, Math.floor(text.length / 2))));
      socket?.destroy();
      return;
    }
    default:
      res.status(out.status).set(out.headers);
      if (out.bodyText === undefined) res.end();
      else res.send(out.bodyText);
  }
}
