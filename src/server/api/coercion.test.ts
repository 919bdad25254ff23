import { expect, it } from "vitest";
import { rejection, callerFor } from "../../test/callers";
import { describeEachDriver, freshDataset } from "../../test/db";
import { LOCAL_CALLER } from "../auth/caller";
import { createApiKey } from "../auth/keys";
import { handleRestV1 } from "./openapi";

/*
 * Input coercion is the same whichever door is called first (coercion.ts): the REST library sets
 * `coerce` on the inputs it serves, which are tRPC's too. A query.ask over tRPC is judged the same
 * before and after REST calls; the query-string routes read numbers from strings at both doors
 * from the start; a JSON body's numbers must be numbers at both.
 */

describeEachDriver("input coercion, whichever door comes first", (ctx) => {
  it("a string or a boolean for a number of query.ask is refused over tRPC before and after REST calls, and in a JSON body", async () => {
    const { app } = ctx();
    const ds = await freshDataset(app, "coerce");
    const key = (await createApiKey({ db: app.database.db, caller: LOCAL_CALLER, input: { name: "coerce", role: "admin" } })).secret;
    const rest = (method: string, path: string, body?: unknown) =>
      handleRestV1(
        new Request(`http://localhost/api/v1${path}`, {
          method,
          headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        }),
        app,
      );
    const api = callerFor(app);
    const question = "What is near Lyon?";
    const refusedOverTrpc = async () => {
      for (const radiusKm of ["5", true]) {
        expect(await rejection(api.query.ask({ dataset: ds.name, question, radiusKm: radiusKm as never }))).toMatchObject({ code: "BAD_REQUEST", field: "radiusKm" });
      }
      expect(await rejection(api.query.ask({ dataset: ds.name, question, limit: "3" as never }))).toMatchObject({ code: "BAD_REQUEST", field: "limit" });
    };

    await refusedOverTrpc();
    // the REST door, with numbers: answered
    const asked = await rest("POST", "/query", { dataset: ds.name, question, radiusKm: 5, limit: 3 });
    expect(asked.status).toBe(200);
    await refusedOverTrpc();
    // a JSON body's number as a string: refused at the REST door too
    for (const body of [{ radiusKm: "5" }, { limit: "3" }]) {
      const res = await rest("POST", "/query", { dataset: ds.name, question, ...body });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { field?: string }).field).toBe(Object.keys(body)[0]);
    }
    // still an honest number works over tRPC
    expect((await api.query.ask({ dataset: ds.name, question, radiusKm: 5, limit: 3 })).queryRunId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("a query-string route reads its numbers from strings at both doors, and still checks them", async () => {
    const { app } = ctx();
    const ds = await freshDataset(app, "coerce");
    const key = (await createApiKey({ db: app.database.db, caller: LOCAL_CALLER, input: { name: "coerce-get", role: "admin" } })).secret;
    const get = (path: string) => handleRestV1(new Request(`http://localhost/api/v1${path}`, { headers: { authorization: `Bearer ${key}` } }), app);
    const api = callerFor(app);
    // over tRPC, as from the start of the process
    expect((await api.runs.query.list({ dataset: ds.name, limit: "2" as never })).items).toEqual([]);
    expect(await rejection(api.runs.query.list({ dataset: ds.name, limit: "0" as never }))).toMatchObject({ code: "BAD_REQUEST", field: "limit" });
    // over REST
    expect((await get(`/runs/query?dataset=${ds.name}&limit=2`)).status).toBe(200);
    const refused = await get(`/graph/entities?dataset=${ds.name}&limit=0`);
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { field?: string }).field).toBe("limit");
    expect((await get(`/graph/entities?dataset=${ds.name}&limit=5`)).status).toBe(200);
  });
});
