/*
 * The command line's one door to a server: the REST API under /api/v1 (src/server/api/openapi.ts),
 * plain JSON with a Bearer key. Errors come back as { code, message, field? } and become a
 * CliError saying the same.
 */

export interface ServerConfig {
  /** the server's base URL (GB_URL), e.g. http://localhost:3000 */
  url: string;
  /** sent as `Authorization: Bearer …` (GB_API_KEY); none for a server with GB_AUTH=off */
  apiKey: string | undefined;
  /** a fetch of your own (tests); the global one by default */
  fetch?: typeof fetch;
}

/** A failure the command line reports and exits non-zero for. */
export class CliError extends Error {
  constructor(
    message: string,
    /** the server's code (BAD_REQUEST, NOT_FOUND …), or USAGE / UNREACHABLE for the CLI's own */
    readonly code: string,
    readonly field?: string,
  ) {
    super(message);
    this.name = "CliError";
  }
}

const REQUEST_TIMEOUT_MS = 120_000;

export type Query = Record<string, string | number | boolean | undefined>;

function queryString(query: Query | undefined): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) params.set(k, String(v));
  const s = params.toString();
  return s ? `?${s}` : "";
}

/** One call: GET with a query string, or POST/DELETE with a JSON body. */
export async function call<T>(server: ServerConfig, method: "GET" | "POST" | "DELETE", path: string, input?: Query | object): Promise<T> {
  const base = server.url.replace(/\/+$/, "");
  const url = `${base}/api/v1${path}${method === "GET" ? queryString(input as Query | undefined) : ""}`;
  const headers: Record<string, string> = { accept: "application/json" };
  if (server.apiKey) headers.authorization = `Bearer ${server.apiKey}`;
  if (method !== "GET") headers["content-type"] = "application/json";
  let res: Response;
  try {
    res = await (server.fetch ?? fetch)(url, {
      method,
      headers,
      body: method === "GET" ? undefined : JSON.stringify(input ?? {}),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
  } catch (e) {
    const why = e instanceof Error ? ((e.cause as Error | undefined)?.message ?? e.message) : String(e);
    throw new CliError(`cannot reach the server at ${base} (${why}); set GB_URL to where gligabao runs`, "UNREACHABLE");
  }
  const body: unknown = await res.json().catch(() => null);
  if (res.ok) return body as T;
  const err = (body ?? {}) as { code?: unknown; message?: unknown; field?: unknown };
  const code = typeof err.code === "string" ? err.code : `HTTP_${res.status}`;
  const message = typeof err.message === "string" ? err.message : `${res.status} ${res.statusText}`;
  const hint = res.status === 401 ? (server.apiKey ? " (GB_API_KEY was refused)" : " (set GB_API_KEY to an API key)") : "";
  throw new CliError(message + hint, code, typeof err.field === "string" ? err.field : undefined);
}
