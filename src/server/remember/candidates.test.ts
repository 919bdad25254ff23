import { randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import { expect, it } from "vitest";
import { describeEachDriver, freshDataset } from "../../test/db";
import type { Db } from "../db/client";
import { queryRows } from "../db/rows";
import { entities, facts } from "../db/schema";
import { type Candidates, type CandidateQuery, FACTS_PER_PREDICATE, loadCandidates, SIMILAR_PER_CHUNK } from "./candidates";
import { pendingWrites } from "./pending";
import type { Plan } from "./resolve";
import { storeChunk } from "./store";
import { createQueuedRun } from "../runs/run-log";
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
    const load = (entityKeys: string[][], types: string[] = []) =>
      loadCandidates(app.database.db, {
        datasetId: ds.id,
        keys: [...new Set(entityKeys.flat())].filter(Boolean),
        entityKeys: entityKeys.map((keys, i) => ({ keys, type: types[i] ?? "person" })),
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

describeEachDriver("load_candidates through a pending store", (ctx) => {
  /** a comparable form: entities and facts by id, with what resolve_edges reads of them */
  const shape = (c: Candidates) => ({
    entities: c.entities.map((e) => ({ ...e, aliases: [...e.aliases].sort(), aliasKeys: [...e.aliasKeys].sort() })).sort((a, b) => a.id.localeCompare(b.id)),
    facts: [...c.facts].sort((a, b) => a.id.localeCompare(b.id)),
  });

  it("reads the dataset as the pending chunk's store leaves it, before and after that store commits", async () => {
    const { app } = ctx();
    const db = app.database.db;
    const ds = await freshDataset(app);
    const id = () => randomUUID();
    const [kim, paris, lyon, acme] = [id(), id(), id(), id()];
    const at = new Date(Date.UTC(2024, 0, 1));
    await db.insert(entities).values([
      { datasetId: ds.id, id: kim, name: "Kim Novak", nameKey: "kim novak", type: "person", aliases: ["Kim"], aliasKeys: ["kim"], createdAt: at, updatedAt: at },
      { datasetId: ds.id, id: paris, name: "Paris", nameKey: "paris", type: "place", createdAt: at, updatedAt: at },
      { datasetId: ds.id, id: lyon, name: "Lyon", nameKey: "lyon", type: "place", createdAt: at, updatedAt: at },
      { datasetId: ds.id, id: acme, name: "Acme", nameKey: "acme", type: "organization", createdAt: at, updatedAt: at },
    ]);
    const old = { livesInParis: id(), likesCats: id() };
    const fact = (fid: string, predicate: string, object: { id: string } | { value: string }) => ({
      datasetId: ds.id, id: fid, subjectId: kim, predicate, sentence: predicate,
      objectId: "id" in object ? object.id : null, objectValue: "value" in object ? object.value : null,
      createdAt: at, textId: kim, chunkId: kim, createdRunId: kim,
    });
    await db.insert(facts).values([fact(old.livesInParis, "lives_in", { id: paris }), fact(old.likesCats, "likes", { value: "cats" })]);

    // the chunk being stored: a new person, an alias for Kim, Kim's move (retiring Paris), a date
    // for a fact Kim had told without one, and facts about the new person
    const zed = id();
    const f = { livesInLyon: id(), zedLikesTea: id(), zedAtAcme: id(), knowsZed: id() };
    const plannedFact = (fid: string, subjectId: string, predicate: string, objectId: string | null, objectValue: string | null) => ({
      id: fid, subjectId, predicate, objectId, objectValue, sentence: `${predicate}!`, validAt: null, invalidAt: null,
    });
    const plan: Plan = {
      entities: [
        { id: zed, isNew: true, name: "Zed Quill", type: "person", aliases: ["Zed"], addedAliases: [], keys: ["zed quill", "zed"] },
        { id: kim, isNew: false, name: "Kim Novak", type: "person", aliases: ["Kim", "Kimmy"], addedAliases: ["Kimmy"], keys: ["kimmy"] },
        { id: lyon, isNew: false, name: "Lyon", type: "place", aliases: [], addedAliases: [], keys: ["lyon"] },
      ],
      facts: [
        plannedFact(f.livesInLyon, kim, "lives_in", lyon, null),
        plannedFact(f.zedLikesTea, zed, "likes", null, "tea"),
        plannedFact(f.zedAtAcme, zed, "works_at", acme, null),
        plannedFact(f.knowsZed, kim, "knows", zed, null),
      ],
      duplicates: [{ factId: old.likesCats, validAt: new Date(Date.UTC(2020, 4, 1)) }],
      invalidations: [{ factId: old.livesInParis, invalidAt: new Date(Date.UTC(2024, 5, 1)), by: f.livesInLyon }],
      asked: null,
    };
    const kimCandidate = { id: kim, name: "Kim Novak", nameKey: "kim novak", type: "person", aliases: ["Kim"], aliasKeys: ["kim"], summary: null, via: "exact" as const, forKey: null, score: 1 };
    const pending = pendingWrites(plan, { entities: [kimCandidate], facts: [] }, new Date());

    // the next chunk: Kim by her new alias, the new person by a similar name
    const next = (withPending: boolean): CandidateQuery => ({
      datasetId: ds.id,
      keys: ["kimmy", "zed quil", "lyon", "acme"],
      entityKeys: [{ keys: ["kimmy"], type: "person" }, { keys: ["zed quil"], type: "person" }, { keys: ["lyon"], type: "place" }, { keys: ["acme"], type: "organization" }],
      vectors: [], pgvector: app.database.vector, dimensions: 256,
      chunkFacts: [
        { subjectKeys: ["kimmy"], predicate: "lives_in", objectKeys: ["lyon"], value: null },
        { subjectKeys: ["kimmy"], predicate: "likes", objectKeys: [], value: "Cats" },
        { subjectKeys: ["kimmy"], predicate: "knows", objectKeys: ["zed quil"], value: null },
        { subjectKeys: ["zed quil"], predicate: "likes", objectKeys: [], value: "tea" },
        { subjectKeys: ["zed quil"], predicate: "visited", objectKeys: ["acme"], value: null },
      ],
      pending: withPending ? pending : undefined,
    });
    const before = await loadCandidates(db, next(true));

    // made started in the transaction that makes it: the app's worker must never see it queued
    // (it would claim it, fail it for its empty params, and the store below would be fenced off)
    const runId = await db.transaction(async (tx) => {
      const made = await createQueuedRun(tx as unknown as typeof db, "remember", { datasetId: ds.id, userId: null, params: {} });
      await tx.execute(sql`UPDATE gb_remember_runs SET status = 'started', attempts = 1 WHERE id = ${made}`);
      return made;
    });
    await storeChunk(db, {
      datasetId: ds.id, runId, attempt: 1,
      text: { id: runId, content: "told", userId: null, source: {}, seriesKey: null, occurredAt: null },
      chunk: { id: randomUUID(), index: 0, content: "told", summary: "", tokenCount: 1, embedding: null },
      plan, vectors: new Map(), linkSeries: false,
    });
    const stored = await loadCandidates(db, next(false));
    // on Postgres the load may read after the store committed: the same again
    const committed = await loadCandidates(db, next(true));

    expect(shape(before)).toEqual(shape(stored));
    expect(shape(committed)).toEqual(shape(stored));
    // and what that is: Kim by her new alias, Zed by the similar name, Paris retired
    const found = (c: Candidates) => c.entities.map((e) => `${e.name}:${e.via}:${e.forKey ?? ""}`).sort();
    expect(found(stored)).toEqual(["Acme:exact:", "Kim Novak:exact:", "Lyon:exact:", "Zed Quill:trigram:zed quil"]);
    expect(stored.entities.find((e) => e.id === kim)?.aliases.sort()).toEqual(["Kim", "Kimmy"]);
    const ids = stored.facts.map((x) => x.id).sort();
    expect(ids).toEqual([f.livesInLyon, f.zedLikesTea, f.zedAtAcme, f.knowsZed, old.likesCats].sort());
    expect(stored.facts.find((x) => x.id === old.likesCats)?.validAt).toEqual(new Date(Date.UTC(2020, 4, 1)));
    expect(stored.facts.find((x) => x.id === f.knowsZed)?.objectName).toBe("Zed Quill");
  });
});

describeEachDriver("load_candidates: similar names, bounded", (ctx) => {
  it(`compares at most ${SIMILAR_PER_CHUNK} keys of a chunk by similar name: persons, organisations and places first, then the shorter`, async () => {
    const { app } = ctx();
    const ds = await freshDataset(app);
    const at = new Date();
    const names = ["Ann Lee", "Bert Hall", "Cara Dunn", "Dov Ash", "Eve Moss", "Finn Gray", "Gus Tate", "Hal Penn", "Ivy Rowe", "Jo Kerr", "coffee garden", "river office"];
    await app.database.db.insert(entities).values(
      names.map((n) => ({ datasetId: ds.id, id: randomUUID(), name: n, nameKey: nameKey(n), type: n === n.toLowerCase() ? "thing" : "person", createdAt: at, updatedAt: at })),
    );
    // each chunk key is one letter off an existing name: none is named exactly like one
    const near = (n: string) => nameKey(n).slice(0, -1);
    const chunkEntities = [
      ...["coffee garden", "river office"].map((n) => ({ keys: [near(n)], type: "thing" })),
      ...names.filter((n) => n !== n.toLowerCase()).map((n) => ({ keys: [near(n)], type: "person" })),
    ];
    const c = await loadCandidates(app.database.db, {
      datasetId: ds.id,
      keys: chunkEntities.map((e) => e.keys[0]!),
      entityKeys: chunkEntities,
      vectors: [], pgvector: app.database.vector, dimensions: 256, chunkFacts: [],
    });
    const compared = [...new Set(c.entities.filter((e) => e.via === "trigram").map((e) => e.forKey))];
    expect(compared.length).toBe(SIMILAR_PER_CHUNK);
    // the persons' keys went first; the things' were left to exact matching
    expect(compared.every((k) => !["coffee garde", "river offic"].includes(k ?? ""))).toBe(true);
  });
});
