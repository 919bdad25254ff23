import { is } from "drizzle-orm";
import { getTableConfig, PgTable } from "drizzle-orm/pg-core";
import * as schema from "./schema";

/*
 * The tables that hold a dataset's rows: every table of the Drizzle schema with a `dataset_id`
 * column, read from the schema rather than listed by hand, so that a new table is deleted with
 * its dataset and weighed by subjects.purge without anyone remembering to add it
 * (dataset-tables.test.ts compares the list with information_schema on a migrated database).
 */

// the module also exports types and helpers: keep the tables
const tables = Object.values(schema as Record<string, unknown>).filter((v): v is PgTable => is(v, PgTable));
const scoped = tables.filter((t) => getTableConfig(t).columns.some((c) => c.name === "dataset_id"));

/**
 * A table before every table it references by foreign key, so that deleting in this order never
 * trips one; otherwise by name, so that the order is stable.
 */
function referencingFirst(list: PgTable[]): string[] {
  const name = (t: PgTable) => getTableConfig(t).name;
  const names = new Set(list.map(name));
  const refs = new Map(
    list.map((t) => [name(t), getTableConfig(t).foreignKeys.map((fk) => name(fk.reference().foreignTable)).filter((n) => names.has(n) && n !== name(t))]),
  );
  const out: string[] = [];
  const left = [...names].sort();
  while (left.length > 0) {
    // a table no remaining table references goes next
    const i = left.findIndex((n) => !left.some((m) => refs.get(m)?.includes(n)));
    if (i < 0) throw new Error(`foreign keys form a cycle among ${left.join(", ")}: no safe deletion order`);
    out.push(...left.splice(i, 1));
  }
  return out;
}

/** Every table with a dataset's rows by dataset_id, in an order safe to delete them in. */
export const DatasetTables: readonly string[] = referencingFirst(scoped);
