/**
 * The ports of the e2e servers, all offsets from one base (E2E_PORT, default 3100), so that two
 * checkouts can run their e2e suites side by side: E2E_PORT=3300 in one, the default in the other.
 */
export const E2E_BASE = Number(process.env.E2E_PORT ?? 3100);

export const ports = {
  /** auth off, builtin models: the specs that use baseURL */
  app: E2E_BASE,
  /** auth on, no account yet: admin.spec.ts */
  auth: E2E_BASE + 1,
  /** GB_MODELS=openai against the loopback fake model server */
  models: E2E_BASE + 2,
  postgres: E2E_BASE + 7,
  /** npm start with GB_WORKERS=2 on a Postgres server: workers.spec.ts */
  workers: E2E_BASE + 8,
  startup: [E2E_BASE + 11, E2E_BASE + 12, E2E_BASE + 13, E2E_BASE + 14],
  durability: E2E_BASE + 20,
  hardening: [E2E_BASE + 31, E2E_BASE + 32, E2E_BASE + 33],
  /** auth on, low rate limit, openai models on the fake: errors.spec.ts */
  errors: E2E_BASE + 30,
  /** auth on (a bootstrap owner and key), its own data dir: stm.spec.ts */
  stm: E2E_BASE + 40,
  /** GB_REDIS_URL: a live Redis, then one that is down: stm-redis.spec.ts */
  stmRedis: E2E_BASE + 41,
  /** auth on (a bootstrap owner key), its own data dir: mcp.spec.ts */
  mcp: E2E_BASE + 42,
  /** auth on (a bootstrap owner key), its own data dir: docs.spec.ts */
  docs: E2E_BASE + 43,
  /** the API lanes of the built app, on and off: lane.spec.ts */
  lane: [E2E_BASE + 50, E2E_BASE + 51],
  fakeModel: E2E_BASE + 98,
} as const;
