#!/usr/bin/env node
/**
 * `node bench/coverage.mjs`: the CPU cost of contract coverage's recording, per request. The journal records the same
 * exchanges (a 201, a 404, a validation violation, a node call, in turn) twice over: once as it ships, once with the
 * tally's count replaced by nothing; the difference is what the tally costs. Rounds alternate so a busy machine
 * weighs on both alike; the median round is printed. A measurement, never a test. Run `npm run build` first.
 *
 * BENCH_RECORDS (200,000 per round), BENCH_ROUNDS (7).
 */
import { Journal } from "../dist/pipeline/journal.js";

const RECORDS = Number(process.env.BENCH_RECORDS ?? 200_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);

const exchange = (i, status, operationId, violation) => ({
  correlationId: `${i.toString(16).padStart(16, "0")}-SBX`,
  receivedAt: Date.now(),
  method: "POST",
  fullPath: "/platform/v2/evm/accounts",
  target: "/platform/v2/evm/accounts",
  path: "/v2/evm/accounts",
  host: "127.0.0.1",
  query: {},
  headers: { "content-type": "application/json" },
  rawBody: Buffer.from('{"name":"treasury-1"}'),
  body: { name: "treasury-1" },
  operation: { operationId },
  pathParams: {},
  projectId: "project-1",
  auth: { kind: "apiKey", verified: true },
  problems: violation ? [{ location: "body/name", message: "must match pattern" }] : [],
  scenarios: [],
  mock: false,
  idempotentReplay: false,
  violation,
  response: {
    status,
    headers: {},
    bodyText: status >= 400 ? '{"errorType":"invalid_request","errorMessage":"The request is invalid.","correlationId":"x"}' : '{"address":"0x0"}',
  },
});

/** CPU µs per record over one round; `tally` false swaps the tally's count for nothing. */
function round(tally) {
  const journal = new Journal(10_000, 500);
  if (!tally) journal.tally.count = () => undefined;
  const kinds = [() => exchange(0, 201, "createEvmAccount"), () => exchange(1, 404, "getEvmAccount"), () => exchange(2, 400, "createEvmAccount", "validation")];
  const made = Array.from({ length: 3 }, (_, k) => kinds[k]());
  const call = {
    kind: "node",
    projectId: "project-1",
    correlationId: "c-SBX",
    receivedAt: Date.now(),
    method: "POST",
    path: "/rpc/v1/base-sepolia/<node token>",
    rpcMethod: "eth_chainId",
    status: 200,
    durationMs: 0,
  };
  const start = process.cpuUsage();
  for (let i = 0; i < RECORDS; i++) {
    if (i % 4 === 3) journal.recordCall(call);
    else journal.record(made[i % 4], 0);
  }
  const used = process.cpuUsage(start);
  return (used.user + used.system) / RECORDS;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
round(true);
round(false); // warm-up
const withTally = [];
const without = [];
for (let r = 0; r < ROUNDS; r++) {
  withTally.push(round(true));
  without.push(round(false));
}
const a = median(withTally);
const b = median(without);
console.log(
  `journal.record per request, median of ${ROUNDS} rounds of ${RECORDS}: ${a.toFixed(2)} µs CPU with the coverage tally, ${b.toFixed(2)} µs without: the tally costs ${(a - b).toFixed(2)} µs`,
);
