import { z } from "zod";
import { cleanResults, endpointOf, getJson, httpUrl } from "./http";
import type { WebSearch } from "./types";

/*
 * A SearxNG instance's JSON API (GB_SEARXNG_URL): GET <url>/search?q=…&format=json. The
 * instance must allow the json format (search.formats in its settings.yml). It answers a page
 * of results, best first; we keep the first `limit`.
 */

const Answer = z
  .object({
    results: z.array(
      z.object({ url: z.string(), title: z.string().nullish(), content: z.string().nullish() }).loose(),
    ),
  })
  .loose();

export function searxngSearch(baseUrl: string, opts: { timeoutMs?: number; fetch?: typeof fetch } = {}): WebSearch {
  const base = httpUrl(baseUrl, "GB_SEARXNG_URL");
  // an instance behind basic auth: fetch refuses credentials in a URL, so they go in a header
  const auth = base.username || base.password ? `Basic ${Buffer.from(`${decodeURIComponent(base.username)}:${decodeURIComponent(base.password)}`).toString("base64")}` : null;
  base.username = "";
  base.password = "";
  base.search = "";
  base.hash = "";
  // the instance's address, or already its /search
  const searchUrl = base.pathname.endsWith("/search") ? base : new URL("search", base.href.endsWith("/") ? base : `${base.href}/`);
  const self = { name: "searxng", endpoint: endpointOf(searchUrl) };
  return {
    ...self,
    async search(query, { limit, signal }) {
      const url = new URL(searchUrl);
      url.search = new URLSearchParams({ q: query, format: "json" }).toString();
      const answer = await getJson(self, url, {
        headers: auth ? { authorization: auth } : {},
        timeoutMs: opts.timeoutMs ?? 10_000,
        signal,
        fetch: opts.fetch ?? fetch,
        schema: Answer,
      });
      const results = cleanResults(answer.results.map((r) => ({ title: r.title, url: r.url, snippet: r.content })), limit);
      return { results, response: { results } };
    },
  };
}
