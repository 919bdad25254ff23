import type { z } from "zod";
import type { SearchResult } from "./types";

/*
 * What both providers share: one GET with a timeout and the caller's signal, the JSON answer
 * checked with zod, and results cleaned up (http(s) links only, snippets as plain text).
 * Error messages name the provider and its endpoint, never a key or a query string.
 */

export class WebSearchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "WebSearchError";
  }
}

/** The URL as a base for the provider's requests; anything but http(s) is refused. */
export function httpUrl(value: string, what: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new WebSearchError(`${what} is not a URL`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new WebSearchError(`${what} must be an http or https URL`);
  return url;
}

/** The address without credentials, query or fragment: what inference rows and errors show. */
export function endpointOf(url: URL): string {
  return `${url.origin}${url.pathname}`;
}

export async function getJson<T>(
  provider: { name: string; endpoint: string },
  url: URL,
  init: { headers: Record<string, string>; timeoutMs: number; signal?: AbortSignal; fetch: typeof fetch; schema: z.ZodType<T> },
): Promise<T> {
  const timeout = AbortSignal.timeout(init.timeoutMs);
  const signal = init.signal ? AbortSignal.any([timeout, init.signal]) : timeout;
  const where = `${provider.name} at ${provider.endpoint}`;
  let body: unknown;
  try {
    // a redirect is not followed: only the configured address is ever called
    const res = await init.fetch(url, { headers: { accept: "application/json", ...init.headers }, signal, redirect: "manual" });
    if (!res.ok) {
      await res.body?.cancel().catch(() => undefined);
      const redirect = res.status >= 300 && res.status < 400 ? " (a redirect, not followed: configure the address it points to)" : "";
      throw new WebSearchError(`${where} answered HTTP ${res.status}${res.statusText ? ` ${res.statusText}` : ""}${redirect}`);
    }
    body = await res.json().catch((e: unknown) => {
      // the timeout or the caller can also strike while the body is read
      if (signal.aborted) throw e;
      throw new WebSearchError(`${where} answered something that is not JSON`);
    });
  } catch (e) {
    if (e instanceof WebSearchError) throw e;
    // the caller stopped the run: its reason, not ours
    if (init.signal?.aborted) throw init.signal.reason;
    if (timeout.aborted) throw new WebSearchError(`${where} did not answer within ${init.timeoutMs} ms`);
    throw new WebSearchError(`${where} did not answer: ${e instanceof Error ? e.message : String(e)}`);
  }
  const parsed = init.schema.safeParse(body);
  if (!parsed.success) throw new WebSearchError(`${where} answered JSON that is not a ${provider.name} search result`);
  return parsed.data;
}

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " " };

/** Plain text of an engine's snippet: tags dropped (Brave marks matches with <strong>), entities decoded. */
export function plainText(html: string): string {
  return html
    .replace(/<[^>]*>/g, "")
    .replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
      if (name[0] !== "#") return ENTITIES[name.toLowerCase()] ?? whole;
      const code = name[1] === "x" || name[1] === "X" ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    })
    .replace(/\s+/g, " ")
    .trim();
}

/** The engine's results as ours: http(s) links only, plain-text titles and snippets, at most `limit`. */
export function cleanResults(raw: { title?: string | null; url: string; snippet?: string | null }[], limit: number): SearchResult[] {
  const out: SearchResult[] = [];
  for (const r of raw) {
    if (out.length >= limit) break;
    let url: URL;
    try {
      url = new URL(r.url);
    } catch {
      continue;
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") continue;
    out.push({ title: plainText(r.title ?? ""), url: url.href, snippet: plainText(r.snippet ?? "") });
  }
  return out;
}
