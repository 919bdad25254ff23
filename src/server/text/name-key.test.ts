import { readFileSync } from "node:fs";
import { randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { callerFor } from "../../test/callers";
import { describeEachDriver, freshDataset } from "../../test/db";
import { queryRows } from "../db/rows";
import { entities } from "../db/schema";
import { entityRule } from "../models/builtin/resolve";
import { termWeights } from "../query/bm25";
import { retrieveLists } from "../query/retrieve";
import { loadCandidates } from "../remember/candidates";
import { nameKey, sqlNameKey } from "./name-key";

/*
 * One name key everywhere a name is compared: store (name_key, alias_keys), load_candidates,
 * query's entity list, graph search and the builtin resolver. Each pair is the stored form and
 * another way of writing it that must find it.
 */
const PAIRS: [stored: string, other: string][] = [
  ["AT&T", "AT & T"],
  ["U.S.", "US"],
  ["Acme", "Acme's"],
  ["Acme", "the Acme"],
];

describe("nameKey", () => {
  it("gives both forms of each pair one key", () => {
    for (const [a, b] of PAIRS) expect(nameKey(b), `${a} / ${b}`).toBe(nameKey(a));
  });

  it("keeps names apart that differ in more than writing", () => {
    expect(nameKey("US")).not.toBe(nameKey("UK"));
    expect(nameKey("AT&T")).not.toBe(nameKey("AT"));
    expect(nameKey("St. Louis")).toBe("st louis");
    expect(nameKey("J.R.R. Tolkien")).toBe("jrr tolkien");
    expect(nameKey("  Café Müller, Inc. ")).toBe("cafe muller inc");
  });

  it("the builtin resolver matches the pairs by its strongest rule", () => {
    for (const [a, b] of PAIRS) {
      expect(entityRule({ name: b, type: "organization", aliases: [] }, { name: a, type: "organization", aliases: [] }), `${a} / ${b}`).toBe(1);
    }
  });
});

describeEachDriver("one name key in store, query, graph and load_candidates", (ctx) => {
  const remember = async (dataset: string, text: string) => {
    const r = await callerFor(ctx().app).remember.submit({ dataset, text, wait: true });
    expect(r.status).toBe("succeeded");
  };

  it("computes the key in SQL as in TypeScript", async () => {
    const { app } = ctx();
    const values = [...PAIRS.flat(), "St. Louis", "J.R.R. Tolkien", "O'Brien", "Johnson & Johnson", "Zoë’s", "3.5 stars", "A. Smith", "an apple", "ÉCOLE"];
    for (const v of values) {
      const [row] = await queryRows<{ k: string }>(app.database.db, sql`SELECT ${sqlNameKey(sql`${v}::text`)} AS k`);
      expect(row!.k, v).toBe(nameKey(v));
    }
  });

  it("finds an entity stored under one form by the other, through every verb", async () => {
    const { app } = ctx();
    const db = app.database.db;
    const api = callerFor(app);
    const ds = await freshDataset(app);
    await remember(ds.name, "Kim works at AT&T.");
    // three people: a second works_at of Kim's would retire the first fact
    await remember(ds.name, "Lena lives in the U.S.");
    await remember(ds.name, "Max works at Acme.");
    const stored = await db.select({ id: entities.id, name: entities.name, nameKey: entities.nameKey }).from(entities).where(sql`${entities.datasetId} = ${ds.id}`);
    for (const [a, b] of PAIRS) {
      const entity = stored.find((e) => e.name === a);
      expect(entity, a).toBeDefined();
      // store kept the key
      expect(entity!.nameKey).toBe(nameKey(b));
      // graph search
      const found = await api.graph.entities({ dataset: ds.name, search: b });
      expect(found.items.map((e) => e.id), `graph search ${b}`).toContain(entity!.id);
      // load_candidates
      const c = await loadCandidates(db, { datasetId: ds.id, keys: [nameKey(b)], vectors: [], pgvector: app.database.vector, dimensions: 256, chunkFacts: [] });
      expect(c.entities.filter((e) => e.via === "exact").map((e) => e.id), `load_candidates ${b}`).toContain(entity!.id);
      // query's entity list: the facts of the entities the question names
      const question = `What about ${b}?`;
      const weights = await termWeights(db, ds.id, question);
      const { lists } = await retrieveLists({ db, datasetId: ds.id, question, vector: null, asOf: null, period: null, pgvector: app.database.vector, dimensions: 256, weights });
      const ids = lists.entities.map((x) => x.id);
      const [{ n }] = (await queryRows<{ n: number }>(
        db,
        sql`SELECT count(*)::int AS n FROM gb_facts WHERE dataset_id = ${ds.id} AND id = ANY(${`{${ids.join(",")}}`}::uuid[])
            AND (subject_id = ${entity!.id} OR object_id = ${entity!.id})`,
      )) as [{ n: number }];
      expect(n, `query ${question}`).toBeGreaterThan(0);
    }
    // remember with the other form: the resolver takes it for the stored entity, no second one
    await remember(ds.name, "Lee lives in the US.");
    const us = await db.select({ id: entities.id }).from(entities).where(sql`${entities.datasetId} = ${ds.id} AND ${entities.nameKey} = 'us'`);
    expect(us).toHaveLength(1);
  });

  it("migration 0012 recomputes the keys stored by the old key function", async () => {
    const { app } = ctx();
    const db = app.database.db;
    const ds = await freshDataset(app);
    const at = new Date();
    const rows = [
      // what the old nameKey stored: "'s" kept as "s", "&" and dots as spaces
      { name: "Acme's", nameKey: "acmes", aliases: ["AT&T", "U.S.", "AT & T", "!"], aliasKeys: ["at t", "u s"] },
      { name: "The U.S.", nameKey: "u s", aliases: [], aliasKeys: [] },
    ].map((r) => ({ ...r, datasetId: ds.id, id: randomUUID(), type: "thing", createdAt: at, createdRunId: randomUUID(), updatedAt: at }));
    await db.insert(entities).values(rows);
    const migration = readFileSync(new URL("../../../drizzle/0012_name_keys.sql", import.meta.url), "utf8");
    await db.execute(sql.raw(migration));
    const after = await db.select({ name: entities.name, nameKey: entities.nameKey, aliasKeys: entities.aliasKeys }).from(entities).where(sql`${entities.datasetId} = ${ds.id}`).orderBy(entities.name);
    expect(after).toEqual([
      { name: "Acme's", nameKey: "acme", aliasKeys: ["at and t", "us"] },
      { name: "The U.S.", nameKey: "us", aliasKeys: [] },
    ]);
    for (const r of after) expect(r.nameKey).toBe(nameKey(r.name));
  });
});
