/**
 * The node's WebSockets, attacked with the `ws` client: rotating a project's client API key closes the sockets
 * opened with the old key (code 1008, a reason that says so), and the caps on sockets and subscriptions hold per
 * project as well as per sandbox, so one project cannot lock another out.
 */
import type { Sandbox } from "cdp-sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { openWebSocket, refusedWith } from "#test/helpers/webSocket.js";
import { call, nodeUrlFor, withSandbox } from "#test/helpers/sandbox.js";

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await withSandbox({ seed: "websocket-hardening" });
});
afterAll(() => sandbox?.close());

const wsOf = (httpUrl: string) => httpUrl.replace(/^http/, "ws");
const closed = (ws: WebSocket) =>
  new Promise<{ code: number; reason: string }>((resolve) => ws.once("close", (code, reason) => resolve({ code, reason: reason.toString() })));

/** A project of its own, with its node's WebSocket URL on `network`. */
async function projectNode(name: string, network: string) {
  const project = await sandbox.createProject(name);
  return { project, url: wsOf(await nodeUrlFor(sandbox, network, project)) };
}

/** Subscribes `count` times on one socket; the answers, in order (notifications in between are skipped). */
async function subscribe(client: Awaited<ReturnType<typeof openWebSocket>>, count: number, firstId = 1) {
  for (let i = 0; i < count; i++) client.send({ id: firstId + i, method: "eth_subscribe", params: ["newHeads"] });
  const answers = [];
  while (answers.length < count) {
    const message = await client.next();
    if (message.id !== undefined) answers.push(message);
  }
  return answers;
}

describe("rotating the client API key", () => {
  it("closes the EVM and Solana sockets opened with the old key (1008), keeps others, and refuses the old URL", async () => {
    const { project, url: evmUrl } = await projectNode("rotated", "base-sepolia");
    const solanaUrl = evmUrl.replace("/base-sepolia/", "/solana-devnet/");
    const { url: bystanderUrl } = await projectNode("bystander", "base-sepolia");
    const evm = await openWebSocket(evmUrl);
    const solana = await openWebSocket(solanaUrl);
    const bystander = await openWebSocket(bystanderUrl);
    // The project id still names the project's node after a rotation: a socket opened with it stays.
    const byProjectId = await openWebSocket(evmUrl.replace(/\/[^/]+$/, `/${project.projectId}`));
    const evmClosed = closed(evm.ws);
    const solanaClosed = closed(solana.ws);

    const rotated = await call(sandbox, "POST", `/_sandbox/projects/${project.projectId}/client-api-key/rotate`, { anonymous: true });
    expect(rotated.status).toBe(200);

    const reason = "client API key rotated: reconnect with the current key";
    expect(await evmClosed).toEqual({ code: 1008, reason });
    expect(await solanaClosed).toEqual({ code: 1008, reason });
    expect(await refusedWith(evmUrl)).toBe(401);
    for (const client of [bystander, byProjectId]) {
      client.send({ id: 7, method: "eth_chainId" });
      expect(await client.next()).toEqual({ jsonrpc: "2.0", id: 7, result: "0x14a34" });
      expect(client.ws.readyState).toBe(WebSocket.OPEN);
    }
    const fresh = await openWebSocket(evmUrl.replace(/\/[^/]+$/, `/${rotated.body.clientApiKey}`));
    fresh.send({ id: 1, method: "eth_chainId" });
    expect(await fresh.next()).toEqual({ jsonrpc: "2.0", id: 1, result: "0x14a34" });
    for (const client of [bystander, byProjectId, fresh]) client.ws.close();
  });
});

describe("batches over the EVM socket", () => {
  it("refuses a batch of 1,001 calls with one error, as the HTTP node does, and answers one of 1,000", async () => {
    const { url } = await projectNode("socket-batches", "base-sepolia");
    const client = await openWebSocket(url);
    const calls = (n: number) => Array.from({ length: n }, (_, i) => ({ jsonrpc: "2.0", id: i + 1, method: "eth_chainId" }));
    client.ws.send(JSON.stringify(calls(1_001)));
    const refused = await client.next();
    expect(refused).toEqual([{ jsonrpc: "2.0", id: 1, error: { code: -32600, message: "batch too large: at most 1000 calls" } }]);
    client.ws.send(JSON.stringify(calls(1_000)));
    const answered = await client.next();
    expect(answered).toHaveLength(1_000);
    expect(answered[999]).toEqual({ jsonrpc: "2.0", id: 1_000, result: "0x14a34" });
    client.ws.close();
  });
});

describe("caps per project", () => {
  it("refuses a project's 65th EVM socket with 429 while another project still connects", async () => {
    const { url: greedyUrl } = await projectNode("greedy-sockets", "base-sepolia");
    const { url: otherUrl } = await projectNode("other-sockets", "base-sepolia");
    const open = await Promise.all(Array.from({ length: 64 }, () => openWebSocket(greedyUrl)));
    expect(await refusedWith(greedyUrl)).toBe(429);
    const other = await openWebSocket(otherUrl);
    other.send({ id: 1, method: "eth_chainId" });
    expect(await other.next()).toEqual({ jsonrpc: "2.0", id: 1, result: "0x14a34" });
    for (const client of [...open, other]) client.ws.close();
  });

  it("refuses a project's 1,025th EVM subscription while another project still subscribes", async () => {
    sandbox.clock.freeze(true); // no block comes meanwhile: 1,024 newHeads subscriptions stay quiet
    const { url: greedyUrl } = await projectNode("greedy-subscriptions", "base-sepolia");
    const { url: otherUrl } = await projectNode("other-subscriptions", "base-sepolia");
    const sockets = await Promise.all(Array.from({ length: 9 }, () => openWebSocket(greedyUrl)));
    const answers = [];
    for (const [i, client] of sockets.entries()) answers.push(...(await subscribe(client, i < 8 ? 128 : 1)));
    expect(answers.slice(0, 1_024).every((a) => typeof a.result === "string")).toBe(true);
    expect(answers[1_024]).toMatchObject({ error: { code: -32602, message: "invalid params: at most 1024 EVM subscriptions per project" } });
    const other = await openWebSocket(otherUrl);
    const [granted] = await subscribe(other, 1);
    expect(granted.result).toMatch(/^0x/);
    for (const client of [...sockets, other]) client.ws.close();
    sandbox.clock.freeze(false);
  });
});
