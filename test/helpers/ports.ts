/**
 * A port for a sandbox a test starts with `--port`: free, and so is the next one, where the sandbox also serves the
 * node's WebSockets (web3.js's convention) and warns on stderr when it cannot. Both are held while checked, then
 * let go; another process may still take one in between, far less often than a port picked without its neighbour.
 */
import { createServer, type Server } from "node:net";

const listen = (port: number) =>
  new Promise<Server | undefined>((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(undefined));
    server.listen(port, "127.0.0.1", () => resolve(server));
  });
const close = (server: Server) => new Promise((resolve) => server.close(resolve));

export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const first = await listen(0);
    if (!first) continue;
    const port = (first.address() as { port: number }).port;
    const next = port < 65535 ? await listen(port + 1) : undefined;
    await close(first);
    if (next) {
      await close(next);
      return port;
    }
  }
  throw new Error("no free pair of neighbouring ports on 127.0.0.1 after 50 tries");
}
