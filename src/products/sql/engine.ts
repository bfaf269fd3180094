/**
 * Runs one read-only SELECT with SQLite (sql.js, compiled to WebAssembly) over
 * tables built from the ledger. Limits (documented in docs/stateful.md): 10,000
 * characters, at most 5 JOINs, 10,000 result rows; only SELECT/WITH, one
 * statement. Every refusal and engine error is 400 invalid_sql_query naming
 * the cause.
 */
import { createRequire } from "node:module";
import type { Database, SqlJsStatic } from "sql.js";
import { apiError } from "../../errors/catalogue.js";
import { TABLES, SQL_NETWORKS, type ColumnType } from "./tables.js";

export const SQL_LIMITS = { maxCharacters: 10_000, maxJoins: 5, maxRows: 10_000 } as const;

let engine: Promise<SqlJsStatic> | undefined;
function sqlite(): Promise<SqlJsStatic> {
  engine ??= (createRequire(import.meta.url)("sql.js") as (config?: object) => Promise<SqlJsStatic>)();
  return engine;
}

const reject = (message: string) => apiError("invalid_sql_query", message);

/** The query with string literals and comments blanked, for the structural checks. */
function skeleton(sql: string): string {
  return sql
    .replace(/'(?:[^']|'')*'/g, "''")
    .replace(/"(?:[^"]|"")*"/g, '""')
    .replace(/--[^\n]*/g, " ")
    .replace(/\/\*[\s\S]*?\*\//g, " ");
}

function checkQuery(sql: string): void {
  if (sql.length > SQL_LIMITS.maxCharacters) throw reject(`The query has ${sql.length} characters; the limit is ${SQL_LIMITS.maxCharacters}.`);
  const bare = skeleton(sql).trim().replace(/;\s*$/, "");
  if (bare.includes(";")) throw reject("Only one statement is allowed.");
  if (!/^(select|with)\b/i.test(bare)) throw reject("Only SELECT queries are allowed (optionally starting with WITH).");
  const forbidden = /\b(insert|update|delete|drop|create|alter|attach|detach|pragma|replace|vacuum|reindex)\b/i.exec(bare);
  if (forbidden) throw reject(`${forbidden[1]!.toUpperCase()} is not allowed: the SQL API is read-only.`);
  const joins = (bare.match(/\bjoin\b/gi) ?? []).length;
  if (joins > SQL_LIMITS.maxJoins) throw reject(`The query has ${joins} JOINs; the limit is ${SQL_LIMITS.maxJoins}.`);
}

const typeOfValue = (v: unknown): ColumnType => (typeof v === "number" ? (Number.isInteger(v) ? "Int64" : "Float64") : "String");

export interface QueryResult {
  rows: Array<Record<string, unknown>>;
  columns: Array<{ name: string; type: ColumnType }>;
}

export async function runQuery(sql: string, data: Record<string, Array<Record<string, unknown>>>): Promise<QueryResult> {
  checkQuery(sql);
  const SQL = await sqlite();
  const db: Database = new SQL.Database();
  try {
    for (const schema of Object.keys(SQL_NETWORKS)) {
      db.run(`ATTACH DATABASE ':memory:' AS ${schema}`);
      for (const table of TABLES) {
        db.run(`CREATE TABLE ${schema}.${table.name} (${table.columns.map((c) => `${c.name} ${c.sqlite}`).join(", ")})`);
        const rows = data[`${schema}.${table.name}`] ?? [];
        if (rows.length === 0) continue;
        const insert = db.prepare(`INSERT INTO ${schema}.${table.name} VALUES (${table.columns.map(() => "?").join(", ")})`);
        for (const row of rows) insert.run(table.columns.map((c) => (row[c.name] ?? null) as never));
        insert.free();
      }
    }
    let statement: ReturnType<typeof db.prepare>;
    try {
      statement = db.prepare(sql.trim().replace(/;\s*$/, ""));
    } catch (error) {
      throw reject(describeEngineError((error as Error).message));
    }
    const names = statement.getColumnNames();
    const rows: Array<Record<string, unknown>> = [];
    while (statement.step()) {
      if (rows.length >= SQL_LIMITS.maxRows) {
        statement.free();
        throw reject(`The query returns more than ${SQL_LIMITS.maxRows} rows; add a LIMIT or narrow it.`);
      }
      rows.push(statement.getAsObject() as Record<string, unknown>);
    }
    statement.free();
    const declared = new Map(TABLES.flatMap((t) => t.columns.map((c) => [c.name, c.type] as const)));
    const columns = names.map((name) => ({ name, type: declared.get(name) ?? (rows[0] ? typeOfValue(rows[0][name]) : "String") }));
    return { rows, columns };
  } finally {
    db.close();
  }
}

function describeEngineError(message: string): string {
  if (/no such table/i.test(message))
    return `Unknown table: ${message.replace(/^.*no such table:\s*/i, "")}. Tables: ${Object.keys(SQL_NETWORKS)
      .flatMap((s) => TABLES.map((t) => `${s}.${t.name}`))
      .join(", ")}.`;
  if (/no such column/i.test(message)) return `Unknown column: ${message.replace(/^.*no such column:\s*/i, "")}. GET /v2/data/query/schema lists the columns.`;
  if (/syntax error|incomplete input/i.test(message)) return `Syntax error: ${message}.`;
  return `The query failed: ${message}.`;
}
