import { type ChildProcess, spawn } from "node:child_process";
import { expect, test } from "@playwright/test";
import postgres from "postgres";
import { createScratchDatabase } from "../src/server/db/scratch";
import { ports } from "./ports";

/*
 * The built app on a Postgres server (DATABASE_URL) rather than PGlite: it migrates a fresh
 * database at start and says so in /api/health. Needs TEST_DATABASE_URL.
 */
const serverUrl = process.env.TEST_DATABASE_URL;

async function waitForHealth(url: string, ms: number): Promise<Response> {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      const res = await fetch(url);
      if (res.ok) return res;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`no answer from ${url} in ${ms} ms`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

if (!serverUrl) {
  console.log("e2e on a Postgres server: not run, TEST_DATABASE_URL is unset");
} else {
  test("npm start with DATABASE_URL serves health from the Postgres server", async () => {
    test.setTimeout(90_000);
    const scratch = await createScratchDatabase(serverUrl, "gb_e2e");
    const admin = postgres(scratch.url, { max: 1, onnotice: () => {} });
    const port = ports.postgres;
    let child: ChildProcess | undefined;
    try {
      child = spawn(process.execPath, ["node_modules/next/dist/bin/next", "start", "-H", "127.0.0.1", "-p", String(port)], {
        env: { ...process.env, DATABASE_URL: scratch.url, GB_MODELS: "builtin", OPENAI_API_KEY: "" },
        stdio: "ignore",
      });
      const res = await waitForHealth(`http://127.0.0.1:${port}/api/health`, 60_000);
      const vector = (await admin`SELECT 1 FROM pg_available_extensions WHERE name = 'vector'`).length > 0;
      expect(await res.json()).toEqual({ ok: true, db: "postgres", models: "builtin", vector: vector ? "pgvector" : "fallback", auth: "on", needsFirstOwner: true });
      // migrated at start: the run-log tables and the default dataset exist
      const [row] = await admin`SELECT count(*)::int AS n FROM datasets WHERE name = 'default'`;
      expect(row?.n).toBe(1);
    } finally {
      child?.kill("SIGTERM");
      await admin.end();
      await scratch.drop();
    }
  });
}
