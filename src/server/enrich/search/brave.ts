import { z } from "zod";
import { cleanResults, endpointOf, getJson, httpUrl } from "./http";
import type { WebSearch } from "./types";

/*
 * The Brave Search API (GB_BRAVE_API_KEY at GB_BRAVE_URL): GET <url>?q=…&count=N with the key in
 * X-Subscription-Token. Its web results are under `web.results`, with matches in <strong> in
 * the description. The key is sent only in that header: never in a URL, a message or a record.
 */

const Answer = z
  .object({
    type: z.string().optional(),
    web: z
      .object({ results: z.array(z.object({ url: z.string(), title: z.string().nullish(), description: z.string().nullish() }).loose()) })
      .loose()
      .optional(),
  })
  .loose()
  // an answer with no web results still says it is a search ({ type: "search" })
  .refine((a) => a.web !== undefined || a.type === "search");

/** Brave's `count`: 1 to 20 */
const MAX_COUNT = 20;

export function braveSearch(opts: { url: string; key: string; timeoutMs?: number; fetch?: typeof fetch }): WebSearch {
  const base = httpUrl(opts.url, "GB_BRAVE_URL");
  const self = { name: "brave", endpoint: endpointOf(base) };
  return {
    ...self,
    async search(query, { limit, signal }) {
      const url = new URL(base);
      url.searchParams.set("q", query);
      url.searchParams.set("count", String(Math.min(Math.max(1, limit), MAX_COUNT)));
      const answer = await getJson(self, url, {
        headers: { "x-subscription-token": opts.key },
        timeoutMs: opts.timeoutMs ?? 10_000,
        signal,
        fetch: opts.fetch ?? fetch,
        schema: Answer,
      });
      const results = cleanResults((answer.web?.results ?? []).map((r) => ({ title: r.title, url: r.url, snippet: r.description })), limit);
      return { results, response: { results } };
    },
  };
}
