/** The SQL API over the simulated ledger: real queries, and each refusal as 400 invalid_sql_query. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encodeFunctionData, erc20Abi, serializeTransaction } from "viem";
import type { Sandbox } from "cdp-sandbox";
import { call, fund, withSandbox } from "#test/helpers/sandbox.js";

let sandbox: Sandbox;
let address: string;
const USDC = "0x036cbd53842c5426634e7929541ec2318f3dcf7e";
const TO = "0x70997970c51812dc3a010c7d01b50e0d17dc79c8";
const run = (sql: string) => call(sandbox, "POST", "/platform/v2/data/query/run", { body: { sql } });

beforeAll(async () => {
  sandbox = await withSandbox({ seed: "sql" });
  address = (await call(sandbox, "POST", "/platform/v2/evm/accounts", { body: {}, wallet: true })).body.address;
  await fund(sandbox, { network: "base-sepolia", address, amount: "1000000000000000000" });
  await fund(sandbox, { network: "base-sepolia", address, token: "USDC", amount: "10000000" });
  for (const amount of [1_000_000n, 2_000_000n, 3_000_000n]) {
    const data = encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [TO, amount] });
    await call(sandbox, "POST", `/platform/v2/evm/accounts/${address}/send/transaction`, {
      body: { network: "base-sepolia", transaction: serializeTransaction({ type: "eip1559", chainId: 84532, to: USDC, data }) },
      wallet: true,
    });
  }
  sandbox.clock.advance(10_000);
});
afterAll(() => sandbox.close());

describe("SQL API", () => {
  it("queries transfers of the ledger with aggregation", async () => {
    const res = await run(
      `SELECT to_address, COUNT(*) AS n, SUM(CAST(value AS INTEGER)) AS total FROM base_sepolia.transfers WHERE token_address = '${USDC}' GROUP BY to_address`,
    );
    expect(res.status).toBe(200);
    expect(res.body.result).toEqual([{ to_address: TO, n: 3, total: 6000000 }]);
    expect(res.body.schema.columns).toEqual([
      { name: "to_address", type: "String" },
      { name: "n", type: "Int64" },
      { name: "total", type: "Int64" },
    ]);
    expect(res.body.metadata.rowCount).toBe(1);
  });

  it("joins transactions with events", async () => {
    const res = await run(
      `SELECT t.from_address, e.event_name FROM base_sepolia.transactions t JOIN base_sepolia.events e ON e.transaction_hash = t.transaction_hash ORDER BY e.block_number LIMIT 2`,
    );
    expect(res.body.result).toEqual([
      { from_address: address.toLowerCase(), event_name: "Transfer" },
      { from_address: address.toLowerCase(), event_name: "Transfer" },
    ]);
  });

  it("describes its tables and grammar", async () => {
    const schema = await call(sandbox, "GET", "/platform/v2/data/query/schema");
    expect(schema.body.tables.map((t: { database: string; table: string }) => `${t.database}.${t.table}`)).toContain("base.transactions");
    const one = await call(sandbox, "GET", "/platform/v2/data/query/schema?database=base_sepolia&table=transfers");
    expect(one.body.tables).toHaveLength(1);
    expect(one.body.tables[0].columns.map((c: { name: string }) => c.name)).toContain("token_address");
    expect((await call(sandbox, "GET", "/platform/v2/data/query/schema?database=solana")).body.tables).toEqual([]);
    const grammar = await call(sandbox, "GET", "/platform/v2/data/query/grammar");
    expect(grammar.body).toMatch(/SELECT/);
  });

  it.each([
    ["an unknown table", "SELECT * FROM base.missing_table", /Unknown table: base\.missing_table/],
    ["an unknown column", "SELECT nope FROM base.blocks", /Unknown column: nope/],
    ["a syntax error", "SELECT FROM WHERE", /Syntax error/],
    ["a write", "DELETE FROM base.blocks", /Only SELECT/],
    ["a second statement", "SELECT 1; SELECT 2", /one statement/],
    ["a hidden write", "WITH x AS (SELECT 1) INSERT INTO base.blocks SELECT * FROM x", /INSERT is not allowed/],
    [
      "too many JOINs",
      `SELECT 1 FROM base.blocks ${Array.from({ length: 6 }, (_, i) => `JOIN base.blocks b${i} ON 1=1`).join(" ")}`,
      /6 JOINs; the limit is 5/,
    ],
    ["too many characters", `SELECT '${"x".repeat(10_001)}'`, /characters; the limit is 10000/],
  ])("refuses %s with 400 invalid_sql_query", async (_what, sql, message) => {
    const res = await run(sql);
    expect(res.status).toBe(400);
    expect(res.body.errorType).toBe("invalid_sql_query");
    expect(res.body.errorMessage).toMatch(message);
  });

  it("keeps semicolons inside string literals", async () => {
    const res = await run("SELECT 'a;b' AS s;");
    expect(res.body.result).toEqual([{ s: "a;b" }]);
  });
});
