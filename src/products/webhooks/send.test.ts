/**
 * A delivery checks the address it actually connects to: a host name that
 * resolves to this machine on the sandbox's port (DNS rebinding: it may have
 * resolved elsewhere when the subscription was written) gets nothing sent.
 * DNS is replaced here by two names, rebound.test and private.test, that resolve to 127.0.0.1 (two, so that a
 * kept-alive connection of one test is not reused by another, which would skip the lookup).
 */
import type { LookupAddress, LookupAllOptions, LookupOneOptions } from "node:dns";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startReceiver, type Receiver } from "#test/helpers/receiver.js";
import { postDelivery } from "./send.js";

vi.mock("node:dns", async (importOriginal) => {
  const actual = await importOriginal<typeof import("node:dns") & { default: typeof import("node:dns") }>();
  type Callback = (error: Error | null, address: string | LookupAddress[], family?: number) => void;
  const lookup = (hostname: string, options: LookupOneOptions | LookupAllOptions, callback: Callback) => {
    if (hostname !== "rebound.test" && hostname !== "private.test") return actual.lookup(hostname, options, callback as never);
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

describe("a delivery from a sandbox bound off loopback (private targets not allowed)", () => {
  const privatePost = (url: string) => postDelivery(url, { "content-type": "application/json" }, "{}", new AbortController().signal, [port + 1], false);

  it("sends nothing to a name that resolves to a loopback address, whatever the port", async () => {
    const outcome = await privatePost(`http://private.test:${port}/hooks/rebound-private`);
    expect(outcome).toMatchObject({ ok: false, errorName: "target_is_private" });
    expect(outcome.body).toMatch(/resolves to 127\.0\.0\.1.*loopback/);
    expect(listener.received("/hooks/rebound-private")).toHaveLength(0);
  });

  it("sends nothing to an address literal on the host's network (literals are never looked up)", async () => {
    const outcome = await privatePost(`http://127.0.0.1:${port}/hooks/literal-private`);
    expect(outcome).toMatchObject({ ok: false, errorName: "target_is_private" });
    expect(listener.received("/hooks/literal-private")).toHaveLength(0);
  });
});
