import { type SQL, sql } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import type { Db } from "./client";
import { queryRows } from "./rows";

/*
 * EXPLAIN ANALYZE of a statement as a connection runs it (tests and the bench's profile). A
 * connection of Database.genericDb plans a prepared statement once, without its values; EXPLAIN of
 * the statement itself would plan it for them (Postgres 15 has no EXPLAIN (GENERIC_PLAN)), so
 * `prepared` explains it as such a connection runs it: PREPARE, EXPLAIN EXECUTE, DEALLOCATE, in a
 * transaction (one connection).
 */

/** EXPLAIN's JSON of a statement run: the plan's root node, and the planning and execution times (ms). */
export interface Explained<N> {
  Plan: N;
  "Planning Time": number;
  "Execution Time": number;
}

/** A parameter as a literal of unknown type, for EXECUTE (the prepared statement's types apply). */
function literal(value: unknown): string {
  if (value === null || value === undefined) return "NULL";
  const text = typeof value === "object" ? JSON.stringify(value) : String(value);
  return `'${text.replace(/'/g, "''")}'`;
}

function parsed<N>(row: Record<string, unknown> | undefined): Explained<N> {
  const raw = Object.values(row ?? {})[0];
  return ((typeof raw === "string" ? JSON.parse(raw) : raw) as [Explained<N>])[0];
}

/** The statement run under EXPLAIN (ANALYZE[, BUFFERS]) on `db`; `prepared`: as a prepared statement (see above). */
export async function explainAnalyzed<N>(db: Db, statement: SQL, opts: { prepared?: boolean; buffers?: boolean } = {}): Promise<Explained<N>> {
  const options = `ANALYZE${opts.buffers ? ", BUFFERS" : ""}, FORMAT JSON`;
  if (!opts.prepared) {
    const [row] = await queryRows<Record<string, unknown>>(db, sql`EXPLAIN (${sql.raw(options)}) ${statement}`);
    return parsed(row);
  }
  const { sql: text, params } = new PgDialect().sqlToQuery(statement);
  return db.transaction(async (tx) => {
    await tx.execute(sql.raw(`PREPARE gb_explained AS ${text}`));
    try {
      const [row] = await queryRows<Record<string, unknown>>(tx, sql.raw(`EXPLAIN (${options}) EXECUTE gb_explained(${params.map(literal).join(", ")})`));
      return parsed(row);
    } finally {
      await tx.execute(sql.raw("DEALLOCATE gb_explained"));
    }
  });
}
