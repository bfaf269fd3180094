/**
 * A local HTTP endpoint for webhook tests: records every request (headers and
 * raw body) per path, and answers with the statuses queued for that path
 * (200 once the queue is empty).
 */
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  rawBody: string;
}

export interface Receiver {
  /** URL of a path on this receiver, e.g. url("/hooks/a"). */
  url(path: string): string;
  received(path?: string): Received[];
  /** The next answers on `path`, in order (e.g. [500, 500] then 200s). */
  answer(path: string, statuses: number[]): void;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const log: Received[] = [];
  const queued = new Map<string, number[]>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const path = req.url ?? "/";
      log.push({ path, headers: req.headers, rawBody: Buffer.concat(chunks).toString("utf8") });
      const status = queued.get(path)?.shift() ?? 200;
      res.writeHead(status, { "content-type": "text/plain" }).end(status < 300 ? "ok" : "not now");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    received: (path) => log.filter((r) => path === undefined || r.path === path),
    answer: (path, statuses) => void queued.set(path, [...statuses]),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
