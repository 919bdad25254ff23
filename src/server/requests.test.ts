import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { callerFor } from "../test/callers";
import { freshDataset, openTestDatabase, testEnv } from "../test/db";
import { aliceInParisChat, type FakeOpenAI, startFakeOpenAI } from "../test/fake-openai";
import { handleTrpc } from "./api/http";
import { handleRestV1 } from "./api/openapi";
import { createApp } from "./app";
import { queryRuns, rememberRuns } from "./db/schema";
import { handleMcp } from "./mcp/http";
import { createRequestGate } from "./requests";

/*
 * Stopping a process (SIGTERM → App.close) lets the API calls in flight finish before the
 * database closes, and refuses those that arrive meanwhile with 503 and Retry-After on every
 * door (tRPC, REST, MCP), never a 500 of a closed database. The built server's SIGTERM is
 * e2e/durability.spec.ts's.
 */

describe("the request gate", () => {
  it("counts the calls in flight, and closing waits for them, then admits none", async () => {
    const gate = createRequestGate();
    const a = gate.enter()!;
    const b = gate.enter()!;
    expect(gate.inFlight).toBe(2);
    a();
    a(); // leaving twice counts once
    expect(gate.inFlight).toBe(1);
    let closed = false;
    const closing = gate.close(10_000).then((left) => {
      closed = true;
      return left;
    });
    expect(gate.enter()).toBeNull();
    await new Promise((r) => setTimeout(r, 20));
    expect(closed).toBe(false);
    b();
    expect(await closing).toBe(0);
  });

  it("stops waiting after its bound and says how many were left", async () => {
    const gate = createRequestGate();
    gate.enter();
    expect(await gate.close(30)).toBe(1);
  });
});

let fake: FakeOpenAI;
/** the answer's delay: long enough that the stop begins while it is in flight */
const ANSWER_MS = 600;
/** the graph extraction's delay (a remember in flight when the stop begins) */
let graphMs = 0;

beforeAll(async () => {
  fake = await startFakeOpenAI({
    chat: aliceInParisChat(
      () => ({ content: { answer: "Alice lives in Paris [1].", cited: [1] }, delayMs: ANSWER_MS }),
      () => ({ delayMs: graphMs }),
    ),
  });
});
afterAll(() => fake.close());

/** An app on the openai provider against the fake, auth off, on a database of its own. */
async function openApp(driver: "pglite" | "postgres") {
  const database = await openTestDatabase(driver);
  const env = testEnv({ GB_AUTH: "off", GB_MODELS: "openai", OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: fake.url, GB_MODEL_MAX_RETRIES: "0" });
  return { app: await createApp({ env, database, pollMs: 50 }), database };
}

for (const driver of ["pglite", "postgres"] as const) {
  const unavailable = driver === "postgres" && !inject("pgUrl");
  if (unavailable) console.log(`stopping with calls in flight [postgres]: skipped, TEST_DATABASE_URL is unset`);
  describe.skipIf(unavailable)(`stopping with calls in flight [${driver}]`, () => {
    it("finishes the call in flight, with its run log, and refuses new calls with 503 on every door", async () => {
      const { app, database } = await openApp(driver);
      try {
        const ds = await freshDataset(app);
        expect((await callerFor(app).remember.submit({ dataset: ds.name, text: "Alice lives in Paris.", wait: true })).status).toBe("succeeded");
        const ask = (question: string) =>
          handleTrpc(
            new Request("http://localhost/api/trpc/query.ask", {
              method: "POST",
              headers: { "content-type": "application/json" },
              body: JSON.stringify({ json: { dataset: ds.name, question } }),
            }),
            app,
          );
        const inFlight = ask("Where does Alice live?");
        // until the call waits on the model
        const t0 = Date.now();
        while (app.requests.inFlight === 0 && Date.now() - t0 < 5000) await new Promise((r) => setTimeout(r, 5));
        expect(app.requests.inFlight).toBe(1);

        let stopped = false;
        const stopping = app.stop({ graceMs: 0 }).then(() => (stopped = true));
        await new Promise((r) => setTimeout(r, 50));
        expect(stopped).toBe(false);

        // new calls while it stops: 503, with when to come back, in each door's own format
        const refusedTrpc = await ask("Who lives in Paris?");
        expect(refusedTrpc.status).toBe(503);
        expect(refusedTrpc.headers.get("retry-after")).toBe("1");
        const trpcBody = (await refusedTrpc.json()) as { error: { json: { message: string; data: { code: string; retryAfterMs: number } } } };
        expect(trpcBody.error.json.data).toMatchObject({ code: "SERVICE_UNAVAILABLE", retryAfterMs: 1000 });
        expect(trpcBody.error.json.message).toMatch(/stopping/);

        const refusedRest = await handleRestV1(new Request(`http://localhost/api/v1/datasets`), app);
        expect(refusedRest.status).toBe(503);
        expect(refusedRest.headers.get("retry-after")).toBe("1");
        expect(await refusedRest.json()).toMatchObject({ code: "SERVICE_UNAVAILABLE", message: expect.stringMatching(/stopping/) as unknown });

        const refusedMcp = await handleMcp(
          new Request("http://localhost/api/mcp", {
            method: "POST",
            headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
            body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
          }),
          app,
        );
        expect(refusedMcp.status).toBe(503);
        expect(refusedMcp.headers.get("retry-after")).toBe("1");
        expect(await refusedMcp.json()).toMatchObject({ jsonrpc: "2.0", error: { message: expect.stringMatching(/stopping/) as unknown } });

        // the call in flight answers in full, and the stop waited for it
        const answered = await inFlight;
        expect(answered.status).toBe(200);
        const body = (await answered.json()) as { result: { data: { json: { answer: string; queryRunId: string } } } };
        expect(body.result.data.json.answer).toBe("Alice lives in Paris [1].");
        await stopping;
        expect(app.requests.inFlight).toBe(0);
        const [run] = await app.database.db.select().from(queryRuns).where(eq(queryRuns.id, body.result.data.json.queryRunId));
        expect(run?.status).toBe("succeeded");
        // the refused calls left no run log
        const runs = await app.database.db.select({ id: queryRuns.id }).from(queryRuns).where(eq(queryRuns.datasetId, ds.id));
        expect(runs).toHaveLength(1);
      } finally {
        await app.stop();
        await database.close();
      }
    });

    it("a remember.submit that waits for its run answers with the run handed back (queued), not an error", async () => {
      const { app, database } = await openApp(driver);
      graphMs = 5000;
      try {
        const ds = await freshDataset(app);
        const waiting = handleTrpc(
          new Request("http://localhost/api/trpc/remember.submit", {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ json: { dataset: ds.name, text: "Alice lives in Paris.", wait: true } }),
          }),
          app,
        );
        // until its run is in flight
        const t0 = Date.now();
        const started = async () => (await app.database.db.select({ status: rememberRuns.status }).from(rememberRuns).where(eq(rememberRuns.datasetId, ds.id)))[0]?.status;
        while ((await started()) !== "started" && Date.now() - t0 < 10_000) await new Promise((r) => setTimeout(r, 20));
        expect(await started()).toBe("started");

        const report = await app.stop({ graceMs: 0 });
        expect(report.handedBack).toBe(1);
        const res = await waiting;
        expect(res.status).toBe(200);
        const body = (await res.json()) as { result: { data: { json: { rememberRunId: string; status: string; error: string | null } } } };
        expect(body.result.data.json).toMatchObject({ status: "queued", error: null });
        const [run] = await app.database.db.select().from(rememberRuns).where(eq(rememberRuns.id, body.result.data.json.rememberRunId));
        expect(run?.status).toBe("queued");
      } finally {
        graphMs = 0;
        await app.stop();
        await database.close();
      }
    });
  });
}
