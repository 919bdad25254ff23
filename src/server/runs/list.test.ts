import { expect, it } from "vitest";
import { describeEachDriver, freshDataset } from "../../test/db";
import { LOCAL_CALLER } from "../../server/auth/caller";
import type { App } from "../app";
import { run, stage } from "../pipeline";
import { createRunLog } from "./run-log";
import { listRuns } from "./list";
import { getInference } from "./get";

const ok = stage<{ failAdvisory: boolean }>({ name: "retrieve_graph", run: () => {} });
const advisory = stage<{ failAdvisory: boolean }>({
  name: "detect_geo",
  policy: "advisory",
  run: (j) => {
    if (j.failAdvisory) throw new Error("advisory failure");
  },
});
const rest = ["nearby_geo", "query"].map((name) => stage<{ failAdvisory: boolean }>({ name, run: () => {} }));

/** n runs of the query log: a mix of succeeded, flagged and failed. */
async function makeRuns(app: App, datasetId: string, kinds: ("ok" | "flagged" | "failed")[]) {
  const ids: string[] = [];
  for (const k of kinds) {
    const log = await createRunLog(app.database.db, "query", { datasetId, userId: null, params: { k } });
    let error: Error | null = null;
    if (k === "failed") error = new Error("fatal");
    else await run([ok, advisory, ...rest], { failAdvisory: k === "flagged" }, log);
    await log.finish(error);
    ids.push(log.id ?? "");
  }
  return ids;
}

describeEachDriver("runs list", (ctx) => {
  it("pages newest first with a cursor, and counts by status", async () => {
    const { app } = ctx();
    const ds = await freshDataset(app);
    const ids = await makeRuns(app, ds.id, ["ok", "failed", "flagged", "ok", "ok"]);
    const db = app.database.db;
    const first = await listRuns({ db, scope: LOCAL_CALLER, kind: "query", input: { dataset: ds.name, limit: 2 } });
    expect(first.items.map((r) => r.id)).toEqual([ids[4], ids[3]]);
    expect(first.counts).toEqual({ queued: 0, started: 0, succeeded: 4, failed: 1 });
    const second = await listRuns({ db, scope: LOCAL_CALLER, kind: "query", input: { dataset: ds.name, limit: 2, cursor: first.nextCursor ?? "" } });
    expect(second.items.map((r) => r.id)).toEqual([ids[2], ids[1]]);
    const third = await listRuns({ db, scope: LOCAL_CALLER, kind: "query", input: { dataset: ds.name, limit: 2, cursor: second.nextCursor ?? "" } });
    expect(third.items.map((r) => r.id)).toEqual([ids[0]]);
    expect(third.nextCursor).toBeNull();
  });

  it("filters by status and by flagged", async () => {
    const { app } = ctx();
    const ds = await freshDataset(app);
    const ids = await makeRuns(app, ds.id, ["ok", "failed", "flagged"]);
    const db = app.database.db;
    const failed = await listRuns({ db, scope: LOCAL_CALLER, kind: "query", input: { dataset: ds.name, status: "failed", limit: 50 } });
    expect(failed.items.map((r) => r.id)).toEqual([ids[1]]);
    expect(failed.items[0]?.error).toBe("fatal");
    const flagged = await listRuns({ db, scope: LOCAL_CALLER, kind: "query", input: { dataset: ds.name, flagged: true, limit: 50 } });
    expect(flagged.items.map((r) => [r.id, r.flagged])).toEqual([[ids[2], true]]);
    expect(flagged.counts).toEqual({ queued: 0, started: 0, succeeded: 1, failed: 0 });
  });

  it("only lists the dataset's own runs, and the other log's are apart", async () => {
    const { app } = ctx();
    const a = await freshDataset(app);
    const b = await freshDataset(app);
    await makeRuns(app, a.id, ["ok"]);
    const db = app.database.db;
    expect((await listRuns({ db, scope: LOCAL_CALLER, kind: "query", input: { dataset: b.name, limit: 50 } })).items).toEqual([]);
    expect((await listRuns({ db, scope: LOCAL_CALLER, kind: "remember", input: { dataset: a.name, limit: 50 } })).items).toEqual([]);
  });

  it("rejects an unknown dataset and a forged cursor", async () => {
    const { app } = ctx();
    const db = app.database.db;
    await expect(listRuns({ db, scope: LOCAL_CALLER, kind: "query", input: { dataset: "no-such-dataset", limit: 5 } })).rejects.toThrow(/dataset not found/);
    const ds = await freshDataset(app);
    await expect(listRuns({ db, scope: LOCAL_CALLER, kind: "query", input: { dataset: ds.name, limit: 5, cursor: "garbage" } })).rejects.toThrow(/cursor/);
  });

  it("an unknown inference is not found", async () => {
    const { app } = ctx();
    await expect(getInference({ db: app.database.db, scope: LOCAL_CALLER, id: crypto.randomUUID() })).rejects.toThrow(/inference not found/);
  });
});
