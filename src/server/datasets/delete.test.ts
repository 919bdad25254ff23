import { sql } from "drizzle-orm";
import { expect, it } from "vitest";
import { queryRows } from "../db/rows";
import { forgetHere } from "../db/lookups";
import { callerFor, rejection } from "../../test/callers";
import { describeEachDriver, freshDataset } from "../../test/db";
import { datasets } from "../db/schema";
import { eq } from "drizzle-orm";
import { DatasetTables } from "../db/dataset-tables";
import { finishDeletions } from "./datasets";

describeEachDriver("datasets.delete", (ctx) => {
  // every table with a dataset_id (dataset-tables.test.ts holds the list to information_schema)
  const rowsOf = async (datasetId: string) => {
    const counts: Record<string, number> = {};
    for (const t of DatasetTables) {
      const [r] = await queryRows<{ n: number }>(ctx().app.database.db, sql`SELECT count(*)::int AS n FROM ${sql.identifier(t)} WHERE dataset_id = ${datasetId}`);
      counts[t] = r?.n ?? 0;
    }
    return counts;
  };

  it("deletes the dataset and every row of it, leaves the others, and is audited", async () => {
    const { app } = ctx();
    const gb = callerFor(app);
    const gone = await freshDataset(app, "del");
    const kept = await freshDataset(app, "keep");
    for (const ds of [gone, kept]) {
      await gb.remember.submit({ dataset: ds.name, text: "Alice lives in Paris. Bob works at Acme.", wait: true });
      await gb.query.ask({ dataset: ds.name, question: "Where does Alice live?" });
    }
    const before = await rowsOf(gone.id);
    const keptBefore = await rowsOf(kept.id);
    expect(before.gb_facts).toBeGreaterThan(0);
    const receipt = await gb.datasets.delete({ name: gone.name, confirm: gone.name });
    expect(receipt.deleted).toMatchObject({ ...before, datasets: 1 });
    expect(Object.values(await rowsOf(gone.id)).every((n) => n === 0)).toBe(true);
    expect(await rowsOf(kept.id)).toEqual(keptBefore);
    expect((await rejection(gb.runs.remember.list({ dataset: gone.name }))).code).toBe("NOT_FOUND");
    const audit = await gb.audit.list({});
    expect(audit.items[0]).toMatchObject({ action: "dataset.delete", target: gone.name });
  });

  it("asks for the name twice, and keeps the default dataset", async () => {
    const { app } = ctx();
    const gb = callerFor(app);
    const ds = await freshDataset(app, "del");
    expect(await rejection(gb.datasets.delete({ name: ds.name, confirm: "nope" }))).toMatchObject({ code: "BAD_REQUEST", field: "confirm" });
    expect((await rejection(gb.datasets.delete({ name: "default", confirm: "default" }))).code).toBe("BAD_REQUEST");
    expect((await gb.datasets.list()).items.map((d) => d.name)).toEqual(expect.arrayContaining([ds.name, "default"]));
  });

  it("a deletion interrupted after the dataset was hidden is finished by the next one", async () => {
    const { app } = ctx();
    const db = app.database.db;
    const gb = callerFor(app);
    const ds = await freshDataset(app, "half");
    await gb.remember.submit({ dataset: ds.name, text: "Alice lives in Paris.", wait: true });
    // as deleteDataset leaves it when the process dies after its first step (whose commit told
    // every other process to forget the dataset: this test's app plays one of those)
    await db.update(datasets).set({ name: `.deleting.${ds.id}` }).where(eq(datasets.id, ds.id));
    forgetHere(db, { kind: "dataset", id: ds.id });
    expect((await gb.datasets.list()).items.map((d) => d.name)).not.toContain(ds.name);
    expect((await rejection(gb.runs.remember.list({ dataset: ds.name }))).code).toBe("NOT_FOUND");
    expect(await finishDeletions(db)).toBeGreaterThanOrEqual(1);
    expect(Object.values(await rowsOf(ds.id)).every((n) => n === 0)).toBe(true);
    expect(await db.select().from(datasets).where(eq(datasets.id, ds.id))).toEqual([]);
  });
});
