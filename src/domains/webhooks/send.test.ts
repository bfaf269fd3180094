/**
 * A delivery checks the address it actually connects to: a host name that
 * resolves to this machine on the sandbox's port (DNS rebinding: it may have
 * resolved elsewhere when the subscription was written) gets nothing sent.
 * DNS is replaced here by one name, rebound.test, that resolves to 127.0.0.1.
 */
import type { LookupAddress, LookupAllOptions, LookupOneOptions } from "node:dns";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startReceiver, type Receiver } from "#test/helpers/receiver.js";
import { postDelivery } from "./send.js";

vi.mock("node:dns", async (importOriginal) => {
  const actual = await importOriginal<typeof import("node:dns") & { default: typeof import("node:dns") }>();
  type Callback = (error: Error | null, address: string | LookupAddress[], family?: number) => void;
  const lookup = (hostname: string, options: LookupOneOptions | LookupAllOptions, callback: Callback) => {
    if (hostname !== "rebound.test") return actual.lookup(hostname, options, callback as never);
    if (options.all) return callback(null, [{ address: "127.0.0.1", family: 4 }]);
    return callback(null, "127.0.0.1", 4);
  };
  return { ...actual, default: { ...actual.default, lookup }, lookup };
});

let listener: Receiver; // stands in for the sandbox: a listener on 127.0.0.1
let port: number;
beforeAll(async () => {
  listener = await startReceiver();
  port = Number(new URL(listener.url("/")).port);
});
afterAll(() => listener.close());

const post = (path: string, sandboxPorts: number[]) =>
  postDelivery(`http://rebound.test:${port}${path}`, { "content-type": "application/json" }, "{}", new AbortController().signal, sandboxPorts);

describe("a delivery to a name that resolves to this machine", () => {
  it("is refused, with nothing sent, when the port is the sandbox's", async () => {
    const outcome = await post("/_sandbox/reset", [port]);
    expect(outcome).toMatchObject({ ok: false, errorName: "target_is_sandbox" });
    expect(outcome.httpCode).toBeUndefined();
    expect(listener.received("/_sandbox/reset")).toHaveLength(0);
  });

  it("is sent when the port is another listener's (the name does reach it)", async () => {
    const outcome = await post("/hooks/other", [port + 1]);
    expect(outcome).toMatchObject({ ok: true, httpCode: 200 });
    expect(listener.received("/hooks/other")).toHaveLength(1);
  });
});
