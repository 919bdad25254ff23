import { randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import { expect, it } from "vitest";
import { describeEachDriver, freshDataset } from "../../test/db";
import type { Db } from "../db/client";
import { queryRows } from "../db/rows";
import { entities, facts } from "../db/schema";
import { type CandidateQuery, FACTS_PER_PREDICATE, loadCandidates } from "./candidates";
import { nameKey, sqlNameKey } from "../text/name-key";

/*
 * load_candidates' facts: exactly those resolve_edges may compare a new fact with (same subject
 * and predicate, or same subject and object), bounded per subject and predicate. The graph is
 * written straight into the tables, so that every fact's age and object is the test's choice.
 */

/** Rows for a dataset of the test's own, each a minute newer than the last, written by `save`. */
function graph(datasetId: string) {
  const run = randomUUID();
  let clock = Date.UTC(2024, 0, 1);
  const tick = () => new Date((clock += 60_000));
  const rows = { entities: [] as (typeof entities.$inferInsert)[], facts: [] as (typeof facts.$inferInsert)[] };
  return {
    entity(name: string, type: string, aliases: string[] = []): string {
      const id = randomUUID();
      const at = tick();
      rows.entities.push({ datasetId, id, name, nameKey: nameKey(name), type, aliases, aliasKeys: aliases.map(nameKey), createdAt: at, createdRunId: run, updatedAt: at });
      return id;
    },
    fact(subjectId: string, predicate: string, object: { id: string } | { value: string }, expired = false): string {
      const id = randomUUID();
      const at = tick();
      rows.facts.push({
        datasetId, id, subjectId, predicate,
        objectId: "id" in object ? object.id : null,
        objectValue: "value" in object ? object.value : null,
        sentence: `${predicate} ${"id" in object ? "something" : object.value}`,
        createdAt: at, expiredAt: expired ? at : null, textId: run, chunkId: run, createdRunId: run,
      });
      return id;
    },
    async save(db: Db): Promise<void> {
      if (rows.entities.length) await db.insert(entities).values(rows.entities);
      if (rows.facts.length) await db.insert(facts).values(rows.facts);
    },
  };
}

describeEachDriver("load_candidates", (ctx) => {
  async function town() {
    const { app } = ctx();
    const ds = await freshDataset(app);
    const g = graph(ds.id);
    const kim = g.entity("Kim Novak", "person", ["Kim"]);
    const lena = g.entity("Lena Vogel", "person", ["Lena"]);
    const paris = g.entity("Paris", "place");
    const lyon = g.entity("Lyon", "place");
    const acme = g.entity("Acme", "organization");
    const f = {
      livesInParis: g.fact(kim, "lives_in", { id: paris }),
      likesCats: g.fact(kim, "likes", { value: "Cats" }),
      worksAtAcme: g.fact(kim, "works_at", { id: acme }),
      livedInLyon: g.fact(kim, "lives_in", { id: lyon }, true),
      likes: Array.from({ length: 25 }, (_, i) => g.fact(kim, "likes", { value: `thing ${i}` })),
      quote: g.fact(kim, 'says_"x"', { value: 'He said "hi", {ok} \\ NULL' }),
    };
    g.fact(lena, "lives_in", { id: paris });
    // a busy town, all newer than Kim's facts
    for (let i = 0; i < 250; i++) g.fact(g.entity(`Person ${i}`, "person"), "lives_in", { id: lyon });
    await g.save(app.database.db);
    const query = (keys: string[], said: CandidateQuery["chunkFacts"]): CandidateQuery => ({
      datasetId: ds.id, keys, vectors: [], pgvector: app.database.vector, dimensions: 256, chunkFacts: said,
    });
    return { db: app.database.db, ids: { kim, lena, paris, lyon, acme }, f, query };
  }
  const KIM = ["kim novak", "kim"];
  /** one of the chunk's facts: Kim (by her keys) and a predicate, with an object entity's keys or a value */
  const said = (predicate: string, object: { keys: string[] } | { value: string }, subjectKeys = KIM) => ({
    subjectKeys,
    predicate,
    objectKeys: "keys" in object ? object.keys : [],
    value: "value" in object ? object.value : null,
  });

  it("loads the facts of the candidate subjects with the chunk's predicates or objects, and no one else's", async () => {
    const { db, ids, f, query } = await town();
    const c = await loadCandidates(db, query(["kim novak", "kim", "lyon"], [said("lives_in", { keys: ["lyon"] }), said("adores", { value: "cats!" })]));
    expect(c.entities.map((e) => e.name).sort()).toEqual(expect.arrayContaining(["Kim Novak", "Lyon"]));
    const candidateIds = new Set(c.entities.map((e) => e.id));
    expect(c.facts.every((x) => candidateIds.has(x.subjectId))).toBe(true);
    // Kim's home (same predicate) and the cats (same value, as nameKey compares it); not the
    // expired home, not the job, not the other likes; none of the 250 newer facts about Lyon
    expect(c.facts.map((x) => x.id).sort()).toEqual([f.livesInParis, f.likesCats].sort());
    expect(c.facts.find((x) => x.id === f.livesInParis)).toMatchObject({ subjectName: "Kim Novak", predicate: "lives_in", objectId: ids.paris, objectName: "Paris" });
  });

  it("finds a fact by its object entity, whatever its predicate", async () => {
    const { db, f, query } = await town();
    const c = await loadCandidates(db, query(["kim novak", "acme"], [said("visited", { keys: ["acme"] })]));
    expect(c.facts.map((x) => x.id)).toEqual([f.worksAtAcme]);
  });

  it("pairs each fact's subject with its own predicate: not every subject with every predicate of the chunk", async () => {
    const { db, f, ids, query } = await town();
    // Lena lives somewhere (her fact's predicate), Kim likes something: Kim's home and Lena's
    // likes are no fact's pair
    const c = await loadCandidates(db, query(["kim novak", "kim", "lena vogel"], [said("likes", { value: "tea" }), said("lives_in", { keys: ["paris"] }, ["lena vogel"])]));
    const lenaHome = c.facts.filter((x) => x.subjectId === ids.lena).map((x) => x.predicate);
    expect(lenaHome).toEqual(["lives_in"]);
    expect(c.facts.some((x) => x.id === f.livesInParis)).toBe(false);
    expect(c.facts.filter((x) => x.subjectId === ids.kim).every((x) => x.predicate === "likes")).toBe(true);
  });

  it(`keeps the newest ${FACTS_PER_PREDICATE} of a subject's facts per predicate, and any with the same object`, async () => {
    const { db, f, query } = await town();
    const likes = await loadCandidates(db, query(["kim novak"], [said("likes", { value: "tea" })]));
    expect(likes.facts.map((x) => x.id).sort()).toEqual(f.likes.slice(-FACTS_PER_PREDICATE).sort());
    const cats = await loadCandidates(db, query(["kim novak"], [said("likes", { value: "the cats" })]));
    expect(cats.facts.map((x) => x.id).sort()).toEqual([...f.likes.slice(-FACTS_PER_PREDICATE), f.likesCats].sort());
  });

  it("loads no fact for a chunk without facts, or whose subjects are all new", async () => {
    const { db, query } = await town();
    const none = await loadCandidates(db, query(["kim novak", "paris"], []));
    expect(none.entities.length).toBeGreaterThan(0);
    expect(none.facts).toEqual([]);
    const stranger = await loadCandidates(db, query(["zed quill", "paris"], [said("lives_in", { keys: ["paris"] }, ["zed quill"])]));
    expect(stranger.facts).toEqual([]);
  });

  it("passes predicates and values with quotes, commas, braces and backslashes as they are", async () => {
    const { db, f, query } = await town();
    const byPredicate = await loadCandidates(db, query(["kim novak"], [said('says_"x"', { value: "a,b" }), said("{c}", { value: "x" })]));
    expect(byPredicate.facts.map((x) => x.id)).toEqual([f.quote]);
    const byValue = await loadCandidates(db, query(["kim novak"], [said("visited", { value: 'he said "HI" {ok} \\ null' })]));
    expect(byValue.facts.map((x) => x.id)).toEqual([f.quote]);
  });

  it("compares literal values in SQL as nameKey does", async () => {
    const { app } = ctx();
    const values = ["Café Müller", "The Beatles", "Alice's cat", "  Acme, Inc. ", "naïve—résumé", "ÉCOLE", "a cat", "Zoë’s", "an apple", "thematic", "Ångström 2"];
    for (const v of values) {
      const [row] = await queryRows<{ k: string }>(app.database.db, sql`SELECT ${sqlNameKey(sql`${v}::text`)} AS k`);
      expect(row!.k, v).toBe(nameKey(v));
    }
  });
});

describeEachDriver("load_candidates: similar names only for entities no existing one is named exactly like", (ctx) => {
  async function people() {
    const { app } = ctx();
    const ds = await freshDataset(app);
    const g = graph(ds.id);
    g.entity("Ann Lee", "person", ["Ann"]);
    g.entity("Annie", "person");
    g.entity("Bobb", "person");
    await g.save(app.database.db);
    const load = (entityKeys: string[][]) =>
      loadCandidates(app.database.db, {
        datasetId: ds.id,
        keys: [...new Set(entityKeys.flat())].filter(Boolean),
        entityKeys,
        vectors: [],
        pgvector: app.database.vector,
        dimensions: 256,
        chunkFacts: [],
      });
    /** the keys a similar name was found for */
    const compared = (c: Awaited<ReturnType<typeof load>>) => [...new Set(c.entities.filter((e) => e.via === "trigram").map((e) => e.forKey))].sort();
    return { load, compared };
  }

  it("drops the keys of an entity whose name is an existing name, keeps the others'", async () => {
    const { load, compared } = await people();
    const c = await load([["ann lee", "ann"], ["bob"]]);
    expect(c.entities.find((e) => e.name === "Ann Lee")?.via).toBe("exact");
    expect(compared(c)).toEqual(["bob"]);
  });

  it("an alias matched exactly is not the name: the entity's keys are still compared", async () => {
    const { load, compared } = await people();
    const c = await load([["zed", "ann"]]);
    expect(c.entities.find((e) => e.name === "Ann Lee")?.via).toBe("exact");
    // Annie, similar to "ann" only
    expect(compared(c)).toEqual(["ann"]);
  });

  it("an entity whose name has no key keeps its aliases' keys", async () => {
    const { load, compared } = await people();
    expect(compared(await load([["", "bob"]]))).toEqual(["bob"]);
  });
});
