/** SQL API: run a query over the ledger, and describe what can be queried. */
import type { Handler, Handlers } from "../../wallet/types.js";
import { runQuery, SQL_LIMITS } from "./engine.js";
import { ledgerRows, SQL_NETWORKS, TABLES } from "./tables.js";

const runSQLQuery: Handler<"runSQLQuery"> = async (req, ctx) => {
  const started = Date.now();
  const { rows, columns } = await runQuery(req.body.sql, ledgerRows(ctx.store, ctx.clock.now()));
  return {
    status: 200,
    body: {
      result: rows,
      schema: { columns },
      metadata: { cached: false, executionTimestamp: ctx.clock.iso(), executionTimeMs: Date.now() - started, rowCount: rows.length },
    },
  };
};

/** Tables of one database (default base), optionally one table; solana and hyperevm have none in the sandbox. */
const getSQLSchema: Handler<"getSQLSchema"> = (req) => {
  const database = String(req.query.database ?? "base");
  const table = req.query.table === undefined ? undefined : String(req.query.table);
  const tables = database in SQL_NETWORKS ? TABLES.filter((t) => table === undefined || t.name === table) : [];
  return {
    status: 200,
    body: {
      tables: tables.map((t) => ({
        database,
        table: t.name,
        columns: t.columns.map((c, i) => ({ name: c.name, type: c.type, nullable: c.nullable ?? false, indexOrder: i })),
      })),
    },
  };
};

const GRAMMAR = `(* What the sandbox's SQL API accepts: one SQLite SELECT over the tables of GET /v2/data/query/schema. *)
query      = [ "WITH" cte { "," cte } ] select [ ";" ] ;
cte        = name "AS" "(" select ")" ;
select     = "SELECT" [ "DISTINCT" ] columns "FROM" source { join } [ "WHERE" expr ]
             [ "GROUP BY" expr { "," expr } ] [ "HAVING" expr ]
             [ "ORDER BY" expr [ "ASC" | "DESC" ] { "," expr [ "ASC" | "DESC" ] } ] [ "LIMIT" integer [ "OFFSET" integer ] ] ;
source     = schema "." table [ [ "AS" ] name ] | "(" select ")" [ "AS" ] name ;
schema     = ${Object.keys(SQL_NETWORKS)
  .map((s) => `"${s}"`)
  .join(" | ")} ;
table      = ${TABLES.map((t) => `"${t.name}"`).join(" | ")} ;
join       = [ "LEFT" | "INNER" | "CROSS" ] "JOIN" source [ "ON" expr ] ;   (* at most ${SQL_LIMITS.maxJoins} *)
(* expressions, functions and operators: SQLite's. Limits: ${SQL_LIMITS.maxCharacters} characters, ${SQL_LIMITS.maxRows} rows. *)
`;

const getSQLGrammar: Handler<"getSQLGrammar"> = () => ({ status: 200, body: GRAMMAR });

export const handlers: Handlers = { runSQLQuery, getSQLSchema, getSQLGrammar };
