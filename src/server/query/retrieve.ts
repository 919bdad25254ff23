import type { SQL } from "drizzle-orm";
import type { Db } from "../db/client";
import { type Part, type PartRows, partRef, partsSql, queryParts } from "../db/batch";
import type { Candidate, ListQuery, ListStatement } from "./lists/candidate";
import { LIST_NAMES, LISTS, type ListName } from "./lists/registry";

/*
 * retrieve_graph's candidates: every list of the registry (lists/registry.ts), each ranking on
 * its own; fusion.ts fuses them by reciprocal rank and cuts the result to the budget. Facts are
 * the current ones (not expired, not ended), or those that held at `asOf`.
 *
 * The lists of one statement each go to the database as one statement (db/batch.ts), with any
 * other SELECT the caller has for the same moment (the place the question names): one round trip
 * for all of them (#16), where there was one per list. A list of several steps (nearby) runs
 * beside it.
 */

export type RetrieveQuery = ListQuery;

/** The lists' statements for this question, each after the lists it reads (the registry's order otherwise). */
function statements(q: RetrieveQuery, names: readonly ListName[]): [ListName, ListStatement][] {
  const planned = new Map<string, ListStatement>();
  const ref = (name: string): SQL | null => (planned.has(name) ? partRef(name) : null);
  const ordered = [...names.filter((n) => !("reads" in LISTS[n] && LISTS[n].reads?.length)), ...names.filter((n) => "reads" in LISTS[n] && LISTS[n].reads?.length)];
  for (const name of ordered) {
    const list = LISTS[name];
    if (!("statement" in list)) continue;
    const s = list.statement(q, ref);
    if (s) planned.set(name, s);
  }
  return [...planned] as [ListName, ListStatement][];
}

/** The statement of the lists (every one the question gives something to look for) and of `also`, as retrieveLists sends it: for EXPLAIN. */
export function listsSql(q: RetrieveQuery, also: Record<string, Part<unknown> | undefined> = {}): SQL | null {
  const parts: Record<string, Part<unknown>> = Object.fromEntries(statements(q, LIST_NAMES).map(([name, s]) => [name, s.part]));
  for (const [key, part] of Object.entries(also)) if (part) parts[key] = part;
  return Object.keys(parts).length ? partsSql(parts) : null;
}

/**
 * Where the lists' one statement goes: q.listsDb (Database.genericDb: planned once for every
 * question of its shape, which halved the statement's time, #16), else q.db. Every part of the
 * statement reads by key or by a bounded sample whatever the values, so that one plan serves
 * every dataset and question (lists/generic-plan.test.ts): a question of only common words reads
 * a sample of the dataset in key order (shared.ts's textRows).
 */
export function listsDbFor(q: RetrieveQuery): Db {
  return q.listsDb ?? q.db;
}

/** The lists that read the question's embedding: those the rest need not wait for (query/job.ts). */
export const VECTOR_LISTS: readonly ListName[] = ["facts_vector", "chunks_vector"];
/** The lists that read no embedding. */
export const TEXT_LISTS: readonly ListName[] = LIST_NAMES.filter((name) => !VECTOR_LISTS.includes(name));

/**
 * The candidates of every list of `names` (by default all; the others' are empty), and the rows of
 * `also` (other SELECTs sent in the same statement, keyed by names that are not list names).
 */
export async function retrieveLists<E extends Record<string, Part<unknown> | undefined>>(
  q: RetrieveQuery,
  also: E = {} as E,
  names: readonly ListName[] = LIST_NAMES,
): Promise<{ lists: Record<ListName, Candidate[]>; also: PartRows<E> }> {
  const planned = statements(q, names);
  const parts: Record<string, Part<unknown>> = Object.fromEntries(planned.map(([name, s]) => [name, s.part]));
  for (const [key, part] of Object.entries(also)) {
    if (key in LISTS) throw new Error(`retrieveLists: ${key} is a list's name`);
    if (part) parts[key] = part;
  }
  const ran = names.filter((name) => "run" in LISTS[name]);
  const [rows, runs] = await Promise.all([
    queryParts(listsDbFor(q), parts),
    Promise.all(
      ran.map((name) => {
        const list = LISTS[name];
        return "run" in list ? list.run(q) : [];
      }),
    ),
  ]);
  const lists = Object.fromEntries(LIST_NAMES.map((name) => [name, [] as Candidate[]])) as Record<ListName, Candidate[]>;
  for (const [name, s] of planned) lists[name] = s.candidates(rows[name]!);
  ran.forEach((name, i) => (lists[name] = runs[i]!));
  return { lists, also: Object.fromEntries(Object.keys(also).map((k) => [k, rows[k] ?? []])) as PartRows<E> };
}

/** One list's candidates (nearby_geo's nearby, once the place is known). */
export async function retrieveList(name: ListName, q: RetrieveQuery): Promise<Candidate[]> {
  const list = LISTS[name];
  if ("run" in list) return list.run(q);
  const [planned] = statements(q, [name]);
  if (!planned) return [];
  const rows = await queryParts(q.db, { [name]: planned[1].part });
  return planned[1].candidates(rows[name]!);
}
