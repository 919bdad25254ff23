import { parse, type PGlite, protocol, type QueryOptions, type Results } from "@electric-sql/pglite";

/*
 * Named prepared statements for the PGlite thread. PGlite's query() parses, analyses and plans its
 * statement anew at every call, in six exchanges with the database (parse, describe, bind,
 * describe, execute, sync), and a remember runs the same few statements (a chunk's store, its
 * candidates) a thousand times a text: their parse and analysis were about a third of each one's
 * time. A statement met a second time is prepared once under a name; later calls bind it, in one
 * exchange. Planning stays per call (plan_cache_mode is left alone: a custom plan while the
 * statement's parameters change what is cheap, as Postgres decides), and so does every result:
 * the rows are read by PGlite's own parser, with the same type parsers its query() uses.
 *
 * A named statement outlives the transaction it was prepared in, committed or rolled back. One
 * that fails to prepare (a syntax error, an aborted transaction) is not kept and fails as query()
 * would have; one whose result columns a schema change altered is dropped and run unprepared.
 */

const { serialize } = protocol;

/** plan_cache_mode while a statement of Database.genericDb runs, and for every other */
const GENERIC = "SET plan_cache_mode = force_generic_plan";
const CUSTOM = "SET plan_cache_mode = force_custom_plan";

/** the most statements kept prepared (the oldest used is closed past it) */
const MAX_PREPARED = 200;
/** the most statement texts remembered as seen once */
const MAX_SEEN = 2_000;

interface Prepared {
  name: string;
  /** the parameters' type ids, as the database described them */
  types: number[];
}

const join = (parts: Uint8Array[]): Uint8Array => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
};

export class PreparedStatements {
  private readonly prepared = new Map<string, Prepared>();
  private readonly seen = new Set<string>();
  private next = 0;

  constructor(private readonly db: PGlite) {}

  /**
   * query() of a statement with parameters: prepared from its second call on. `generic`: planned
   * once for any values (Database.genericDb): plan_cache_mode is force_generic_plan while it runs,
   * then force_custom_plan again. A prepared statement outside a transaction sends the two SETs in
   * the same exchange as its bind and execute (SET, bind, execute, sync, SET: the second SET runs
   * after a failed statement too, the sync having ended its error); each SET an exchange of its own
   * cost 0.25 ms (10k facts), a lists' statement on PGlite 0.5 ms of its 5.5. In a transaction a
   * failed statement would leave the second SET refused: there it takes an exchange of its own,
   * as it does unprepared, and ROLLBACK undoes the first.
   */
  async query(sql: string, params: unknown[], options: QueryOptions, generic = false): Promise<Results> {
    const statement = this.prepared.get(sql) ?? (this.seen.has(sql) ? await this.prepare(sql) : null);
    if (!statement) {
      if (this.seen.size >= MAX_SEEN) this.seen.clear();
      this.seen.add(sql);
      return this.planned(generic, () => this.db.query(sql, params, options));
    }
    if (generic && this.db.isInTransaction()) return this.planned(true, () => this.run(sql, statement, params, options, false));
    return this.run(sql, statement, params, options, generic);
  }

  /** `run` with plan_cache_mode force_generic_plan while it runs, when `generic`. */
  private async planned(generic: boolean, run: () => Promise<Results>): Promise<Results> {
    if (!generic) return run();
    await this.db.exec(GENERIC);
    try {
      return await run();
    } finally {
      // in a transaction the statement failed, ROLLBACK undoes the SET (this one is refused)
      await this.db.exec(CUSTOM).catch(() => {});
    }
  }

  /** A prepared statement's bind and execute; `generic`: between the two SETs, in the same exchange. */
  private async run(sql: string, statement: Prepared, params: unknown[], options: QueryOptions, generic: boolean): Promise<Results> {
    // the most recently used last: the first is the one to close
    this.prepared.delete(sql);
    this.prepared.set(sql, statement);
    const values = params.map((p, i) => {
      if (p === null || p === undefined) return null;
      const serializer = options.serializers?.[statement.types[i]!] ?? this.db.serializers[statement.types[i]!];
      return serializer ? serializer(p) : String(p);
    });
    const exchange = [serialize.bind({ statement: statement.name, values }), serialize.describe({ type: "P" }), serialize.execute({}), serialize.sync()];
    let messages;
    try {
      messages = await this.db.execProtocolStream(join(generic ? [serialize.query(GENERIC), ...exchange, serialize.query(CUSTOM)] : exchange), { syncToFs: false });
    } catch (e) {
      // "cached plan must not change result type": a migration changed the columns it returns
      if ((e as { code?: unknown }).code !== "0A000") throw e;
      this.prepared.delete(sql);
      await this.close(statement.name);
      return this.planned(generic, () => this.db.query(sql, params, options));
    }
    if (!this.db.isInTransaction()) await this.db.syncToFs();
    // one result a command: the first SET's, then the statement's
    return parse.parseResults(messages, this.db.parsers, options)[generic ? 1 : 0]!;
  }

  private async prepare(sql: string): Promise<Prepared> {
    const name = `gb_${this.next++}`;
    const messages = await this.db.execProtocolStream(join([serialize.parse({ name, text: sql }), serialize.describe({ type: "S", name }), serialize.sync()]), {
      syncToFs: false,
    });
    const statement = { name, types: parse.parseDescribeStatementResults(messages) };
    this.seen.delete(sql);
    this.prepared.set(sql, statement);
    if (this.prepared.size > MAX_PREPARED) {
      const [oldest, old] = this.prepared.entries().next().value as [string, Prepared];
      this.prepared.delete(oldest);
      await this.close(old.name);
    }
    return statement;
  }

  private async close(name: string): Promise<void> {
    await this.db.execProtocolStream(join([serialize.close({ type: "S", name }), serialize.sync()]), { syncToFs: false });
  }
}
