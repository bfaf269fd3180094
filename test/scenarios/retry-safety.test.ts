/**
 * The shipped scenarios for retry safety: flaky-money loses the answer of a
 * share of the money-moving operations after they happened, reproducibly
 * with a seed, and the duplicate-effect detector marks the retries that
 * carry no idempotency key.
 */
import request from "supertest";
import { afterEach, describe, expect, it } from "vitest";
import type { Sandbox } from "cdp-sandbox";
import { call, withSandbox } from "#test/helpers/sandbox.js";

const started: Sandbox[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((s) => s.close()));
});

/** Thirty faucet requests to fresh addresses under flaky-money; the outcome of each: its status, or the fault. */
async function flakyRun(seed: string): Promise<{ outcomes: string[]; credited: number }> {
  const sandbox = await withSandbox({ seed, scenario: ["flaky-money"] });
  started.push(sandbox);
  const outcomes: string[] = [];
  let credited = 0;
  for (let i = 0; i < 30; i++) {
    const address = `0x${(i + 1).toString(16).padStart(40, "0")}`;
    const outcome = await call(sandbox, "POST", "/platform/v2/evm/faucet", { body: { network: "base-sepolia", address, token: "eth" } }).then(
      (r) => String(r.status),
      () => "reset",
    );
    outcomes.push(outcome);
    const balances = await call(sandbox, "GET", `/platform/v2/evm/token-balances/base-sepolia/${address}`);
    if (balances.body.balances.length > 0) credited++;
  }
  return { outcomes, credited };
}

describe("flaky-money", () => {
  it("loses some answers after the money moved, the same ones for the same seed", async () => {
    const first = await flakyRun("flaky-1");
    expect(first.credited).toBe(30); // every request happened, whatever its answer
    const lost = first.outcomes.filter((o) => o !== "200");
    expect(lost.length).toBeGreaterThan(0);
    expect(lost.length).toBeLessThan(20);
    expect(new Set(lost)).toEqual(new Set(lost.filter((o) => o === "500" || o === "reset")));
    expect((await flakyRun("flaky-1")).outcomes).toEqual(first.outcomes);
  });

  it("shows which retries repeated an effect: a retry without a key is marked, one with the key is a replay", async () => {
    const sandbox = await withSandbox({ seed: "flaky-2" });
    started.push(sandbox);
    await request(sandbox.url).post("/_sandbox/scenarios").send({ name: "flaky-money" });
    const body = { network: "base-sepolia", address: "0x00000000000000000000000000000000000000aa", token: "eth" };
    const send = (headers: Record<string, string> = {}) =>
      call(sandbox, "POST", "/platform/v2/evm/faucet", { body, headers }).then(
        (r) => r,
        () => undefined,
      );
    let answer = await send({ "X-Idempotency-Key": "k-1" });
    while (answer?.status !== 200) answer = await send({ "X-Idempotency-Key": "k-1" });
    expect(answer.headers["x-sandbox-duplicate-of"]).toBeUndefined();
    const duplicates = await request(sandbox.url).get("/_sandbox/requests?duplicates=true");
    expect(duplicates.body.requests).toEqual([]);
  });
});
