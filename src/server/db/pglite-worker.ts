import { PGlite } from "@electric-sql/pglite";
import { btree_gin } from "@electric-sql/pglite/contrib/btree_gin";
import { btree_gist } from "@electric-sql/pglite/contrib/btree_gist";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
import { vector } from "@electric-sql/pglite-pgvector";
import { serve } from "../threads/serve";
import { PreparedStatements } from "./pglite-prepared";
import type { PgliteRequest, Results } from "./pglite-thread";

/** The PGlite thread (pglite-thread.ts starts it): one PGlite, answering one request at a time. */

let db: PGlite | null = null;
let statements: PreparedStatements | null = null;
const identity = (v: unknown) => v;

function open(): PGlite {
  if (!db) throw new Error("PGlite is closed");
  return db;
}

const plain = (r: Results): Results => ({ rows: r.rows, fields: r.fields, affectedRows: r.affectedRows });

serve(async (msg) => {
  const req = msg as unknown as PgliteRequest;
  switch (req.op) {
    case "open":
      db = await PGlite.create({
        dataDir: req.dataDir,
        loadDataDir: req.loadDataDir ? new Blob([req.loadDataDir]) : undefined,
        extensions: { vector, pg_trgm, btree_gist, btree_gin },
      });
      // as on a server (client.ts PLAN_CACHE_MODE): every statement planned for its own values
      await db.exec("SET plan_cache_mode = force_custom_plan");
      statements = new PreparedStatements(db);
      return null;
    case "query": {
      // drizzle passes parsers that keep some types' text as it is: functions, which cannot
      // cross threads, so the same types are kept as text here
      const parsers = Object.fromEntries(req.rawTypes.map((t) => [t, identity]));
      const options = { rowMode: req.rowMode, parsers };
      const pg = open();
      // a statement with parameters is one run again and again (see pglite-prepared.ts), genericDb's
      // planned once for any values (the SETs in its exchange)
      if (req.params.length > 0 && statements) return plain(await statements.query(req.sql, req.params, options, req.generic === true));
      const run = async () => plain(await pg.query(req.sql, req.params, options));
      if (!req.generic) return run();
      // genericDb's (PgliteThread.generic): planned once for any values, then back to the rule
      await pg.exec("SET plan_cache_mode = force_generic_plan");
      try {
        return await run();
      } finally {
        // in a transaction the statement failed, ROLLBACK undoes the SET (this one is refused)
        await pg.exec("SET plan_cache_mode = force_custom_plan").catch(() => {});
      }
    }
    case "exec":
      return (await open().exec(req.sql)).map(plain);
    case "dump":
      return await (await open().dumpDataDir(req.compression)).arrayBuffer();
    case "close":
      await db?.close();
      db = null;
      statements = null;
      return null;
  }
});
