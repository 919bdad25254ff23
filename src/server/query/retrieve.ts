import type { Candidate, ListQuery, RetrievalList } from "./lists/candidate";
import { LIST_NAMES, LISTS, type ListName } from "./lists/registry";

/*
 * retrieve_graph's candidates: every list of the registry (lists/registry.ts) run at once, each
 * ranking on its own; fusion.ts fuses them by reciprocal rank and cuts the result to the budget.
 * Facts are the current ones (not expired, not ended), or those that held at `asOf`.
 */

export type RetrieveQuery = Omit<ListQuery, "run">;

/** The query every list of one retrieval is asked. */
function listQuery(q: RetrieveQuery): ListQuery {
  // A list may read another's candidates (series_around follows the full-text ones): each list's
  // promise is kept, so it runs once. A Postgres pool answers the lists in parallel; PGlite in turn.
  const runs = new Map<RetrievalList, Promise<Candidate[]>>();
  const query: ListQuery = {
    ...q,
    run(list) {
      let found = runs.get(list);
      if (!found) runs.set(list, (found = list(query)));
      return found;
    },
  };
  return query;
}

export async function retrieveLists(q: RetrieveQuery): Promise<Record<ListName, Candidate[]>> {
  const query = listQuery(q);
  const found = await Promise.all(LIST_NAMES.map((name) => query.run(LISTS[name])));
  return Object.fromEntries(LIST_NAMES.map((name, i) => [name, found[i]!])) as Record<ListName, Candidate[]>;
}

/** One list's candidates (nearby_geo's nearby, once the place is known). */
export function retrieveList(name: ListName, q: RetrieveQuery): Promise<Candidate[]> {
  return LISTS[name](listQuery(q));
}
