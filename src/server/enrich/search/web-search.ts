import type { Models } from "../../models/record";
import type { SearchResult, WebSearch } from "./types";

/*
 * web_search's searches (#15): one query per main entity of the text (at most MAX_QUERIES, most
 * mentioned first), the top RESULTS_PER_QUERY of each, each search recorded as a "web_search"
 * inference. A result becomes an observation (its title and snippet, as the engine gave them);
 * its URL is kept as the source and never fetched.
 */

const MAX_QUERIES = 3;
const RESULTS_PER_QUERY = 3;
/** an observation's length: an engine's snippet is a few sentences; a long one is cut */
const MAX_CONTENT = 1000;

export interface WebSearchObservation {
  /** what reconcile reads: the result's title and snippet */
  content: string;
  url: string;
  /** the query that found it */
  query: string;
  result: SearchResult;
}

export interface WebSearchOutput {
  provider: string;
  endpoint: string;
  queries: { query: string; results: { title: string; url: string }[]; error?: string }[];
  kept: { url: string; query: string; title: string }[];
  skipped: { url: string; query: string; reason: string }[];
  /** the searches that failed, when others succeeded */
  errors: { query: string; error: string }[];
}

export interface WebSearchFound {
  /** one per kept result: the observation's text (title and snippet), its URL and the query that found it */
  observations: WebSearchObservation[];
  /** the stage's output: queries, results, what was kept and why */
  output: WebSearchOutput;
}

/** The distinct entity names to search for, in the given order. */
function queriesOf(entities: string[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const e of entities) {
    const q = e.replace(/\s+/g, " ").trim();
    const key = q.toLowerCase();
    if (!q || seen.has(key)) continue;
    seen.add(key);
    out.push(q);
    if (out.length === MAX_QUERIES) break;
  }
  return out;
}

/**
 * A page title without its site ("Lyon - Wikipedia" → "Lyon"): left on, an extractor reads the
 * site's name as something the text is about.
 */
export function titleWithoutSite(title: string): string {
  const t = title.trim();
  const at = Math.max(t.lastIndexOf(" - "), t.lastIndexOf(" | "), t.lastIndexOf(" — "), t.lastIndexOf(" – "));
  return at > 0 ? t.slice(0, at).trim() : t;
}

/** "Title. Snippet", cut at a word near MAX_CONTENT. */
export function observationContent(r: SearchResult): string {
  const title = titleWithoutSite(r.title);
  const snippet = r.snippet.trim();
  const text = !title ? snippet : !snippet ? title : `${title}${/[.!?…:]$/.test(title) ? "" : "."} ${snippet}`;
  if (text.length <= MAX_CONTENT) return text;
  const cut = text.slice(0, MAX_CONTENT - 1);
  const space = cut.lastIndexOf(" ");
  return `${space > MAX_CONTENT / 2 ? cut.slice(0, space) : cut}…`;
}

/** The same page whatever its fragment. */
function pageKey(url: string): string {
  const u = new URL(url);
  u.hash = "";
  return u.href;
}

/**
 * `entities`: the text's main entities, most mentioned first; only their names leave the process,
 * never `text` (kept in the signature for a provider that would want context). Throws when every search failed;
 * when some did, keeps the others' results and lists the errors in the output.
 */
export async function searchWeb(input: { models: Models; search: WebSearch; text: string; entities: string[]; signal?: AbortSignal }): Promise<WebSearchFound> {
  const { models, search, signal } = input;
  const queries = queriesOf(input.entities);
  const searches = await Promise.allSettled(
    queries.map((query) =>
      models.external(
        { task: "web_search", provider: search.name, model: search.endpoint, request: { query, limit: RESULTS_PER_QUERY } },
        async () => {
          const r = await search.search(query, { limit: RESULTS_PER_QUERY, ...(signal ? { signal } : {}) });
          return { value: r.results, response: r.response };
        },
      ),
    ),
  );
  signal?.throwIfAborted();

  const output: WebSearchOutput = { provider: search.name, endpoint: search.endpoint, queries: [], kept: [], skipped: [], errors: [] };
  const observations: WebSearchObservation[] = [];
  const seen = new Map<string, string>();
  searches.forEach((s, i) => {
    const query = queries[i]!;
    if (s.status === "rejected") {
      const error = s.reason instanceof Error ? s.reason.message : String(s.reason);
      output.queries.push({ query, results: [], error });
      output.errors.push({ query, error });
      return;
    }
    output.queries.push({ query, results: s.value.map((r) => ({ title: r.title, url: r.url })) });
    for (const result of s.value.slice(0, RESULTS_PER_QUERY)) {
      const key = pageKey(result.url);
      const earlier = seen.get(key);
      const content = observationContent(result);
      if (earlier !== undefined) output.skipped.push({ url: result.url, query, reason: `also a result of "${earlier}"` });
      else if (!content) output.skipped.push({ url: result.url, query, reason: "no title or snippet" });
      else {
        seen.set(key, query);
        observations.push({ content, url: result.url, query, result });
        output.kept.push({ url: result.url, query, title: result.title });
      }
    }
  });
  if (queries.length > 0 && output.errors.length === queries.length) {
    throw new Error(`web search failed for every query: ${output.errors.map((e) => `"${e.query}": ${e.error}`).join("; ")}`);
  }
  return { observations, output };
}
