import { and, eq, sql } from "drizzle-orm";
import { expect, it } from "vitest";
import { callerFor } from "../../test/callers";
import { describeEachDriver, freshDataset } from "../../test/db";
import type { Db } from "../db/client";
import { queryRows } from "../db/rows";
import { chunks, facts, texts } from "../db/schema";

/*
 * gb_chunks.retired (a chunk all of whose facts were retired is past, not current context) is
 * kept by triggers on gb_mentions and gb_facts (migration 0023), whatever statement writes them:
 * here it is compared with what the chunk's facts say, after remember, a supersede, and direct
 * writes of the kinds the triggers watch.
 */

/** Each chunk of the dataset: its text's content, the kept flag, and the flag as its facts say now. */
async function retiredOf(db: Db, datasetId: string) {
  return queryRows<{ content: string; kept: boolean; said: boolean }>(
    db,
    sql`SELECT t.content, c.retired AS kept,
          (EXISTS (SELECT 1 FROM gb_mentions m WHERE m.dataset_id = c.dataset_id AND m.chunk_id = c.id AND m.target_kind = 'fact')
           AND NOT EXISTS (SELECT 1 FROM gb_mentions m JOIN gb_facts f ON f.dataset_id = m.dataset_id AND f.id = m.target_id
                           WHERE m.dataset_id = c.dataset_id AND m.chunk_id = c.id AND m.target_kind = 'fact' AND f.expired_at IS NULL)) AS said
        FROM gb_chunks c JOIN gb_texts t ON t.dataset_id = c.dataset_id AND t.id = c.text_id
        WHERE c.dataset_id = ${datasetId} ORDER BY t.content`,
  );
}

describeEachDriver("chunk retired", (ctx) => {
  const remember = async (dataset: string, text: string) => {
    expect((await callerFor(ctx().app).remember.submit({ dataset, text, wait: true })).status).toBe("succeeded");
  };

  it("is set as a chunk's last current fact is retired, and the question no longer reads its summary", async () => {
    const { app } = ctx();
    const db = app.database.db;
    const ds = await freshDataset(app);
    await remember(ds.name, "Alice lives in Paris.");
    expect(await retiredOf(db, ds.id)).toEqual([{ content: "Alice lives in Paris.", kept: false, said: false }]);
    await remember(ds.name, "In 2024 Alice moved to Berlin.");
    expect(await retiredOf(db, ds.id)).toEqual([
      { content: "Alice lives in Paris.", kept: true, said: true },
      { content: "In 2024 Alice moved to Berlin.", kept: false, said: false },
    ]);
    const r = await callerFor(app).query.ask({ dataset: ds.name, question: "Where does Alice live?" });
    expect(r.sources.some((s) => /Paris/.test(s.text))).toBe(false);
    expect(r.answer).toMatch(/Berlin/);
  });

  it("follows every write the triggers watch: a fact expired and restored, mentions added and removed, a fact deleted", async () => {
    const { app } = ctx();
    const db = app.database.db;
    const ds = await freshDataset(app);
    await remember(ds.name, "Bob works at Acme. Bob lives in Rome.");
    await remember(ds.name, "Carol likes tea.");
    const [bob] = await db
      .select({ id: chunks.id })
      .from(chunks)
      .innerJoin(texts, and(eq(texts.datasetId, chunks.datasetId), eq(texts.id, chunks.textId)))
      .where(and(eq(chunks.datasetId, ds.id), sql`${texts.content} LIKE 'Bob%'`));
    const bobFacts = await db.select({ id: facts.id }).from(facts).where(and(eq(facts.datasetId, ds.id), eq(facts.chunkId, bob!.id)));
    expect(bobFacts.length).toBe(2);
    const flags = async () => Object.fromEntries((await retiredOf(db, ds.id)).map((r) => [r.content.slice(0, 5), r.kept === r.said ? r.kept : "drift"]));
    const expire = (id: string, at: "now()" | "NULL") => db.execute(sql`UPDATE gb_facts SET expired_at = ${sql.raw(at)} WHERE dataset_id = ${ds.id} AND id = ${id}`);

    // one of two facts expired: still current; both: retired; one restored: current again
    await expire(bobFacts[0]!.id, "now()");
    expect(await flags()).toEqual({ "Bob w": false, "Carol": false });
    await expire(bobFacts[1]!.id, "now()");
    expect(await flags()).toEqual({ "Bob w": true, "Carol": false });
    // a write to other columns leaves it be
    await db.execute(sql`UPDATE gb_facts SET sentence = sentence || '' WHERE dataset_id = ${ds.id}`);
    expect(await flags()).toEqual({ "Bob w": true, "Carol": false });
    await expire(bobFacts[1]!.id, "NULL");
    expect(await flags()).toEqual({ "Bob w": false, "Carol": false });
    await expire(bobFacts[1]!.id, "now()");

    // Carol's current fact mentioned by Bob's chunk too: current; the mention removed: retired
    const [carol] = await db.select({ id: facts.id }).from(facts).where(and(eq(facts.datasetId, ds.id), sql`${facts.sentence} LIKE 'Carol%'`));
    await db.execute(sql`INSERT INTO gb_mentions (dataset_id, chunk_id, target_kind, target_id, text_id, run_id)
      SELECT dataset_id, ${bob!.id}, 'fact', ${carol!.id}, text_id, run_id FROM gb_mentions WHERE dataset_id = ${ds.id} AND chunk_id = ${bob!.id} LIMIT 1`);
    expect(await flags()).toEqual({ "Bob w": false, "Carol": false });
    await db.execute(sql`DELETE FROM gb_mentions WHERE dataset_id = ${ds.id} AND chunk_id = ${bob!.id} AND target_id = ${carol!.id}`);
    expect(await flags()).toEqual({ "Bob w": true, "Carol": false });

    // a chunk whose fact mentions all go states no fact: not retired
    await db.execute(sql`DELETE FROM gb_mentions WHERE dataset_id = ${ds.id} AND chunk_id = ${bob!.id} AND target_kind = 'fact'`);
    expect(await flags()).toEqual({ "Bob w": false, "Carol": false });

    // a current fact deleted under its mentions: what is left of each chunk's facts is retired
    // (Carol's own chunk states nothing current any more)
    await db.execute(sql`INSERT INTO gb_mentions (dataset_id, chunk_id, target_kind, target_id, text_id, run_id)
      SELECT dataset_id, ${bob!.id}, 'fact', x.id, text_id, run_id FROM gb_mentions, (VALUES (${bobFacts[0]!.id}::uuid), (${carol!.id}::uuid)) x(id)
      WHERE dataset_id = ${ds.id} AND chunk_id = ${bob!.id} LIMIT 2`);
    expect(await flags()).toEqual({ "Bob w": false, "Carol": false });
    await db.execute(sql`DELETE FROM gb_facts WHERE dataset_id = ${ds.id} AND id = ${carol!.id}`);
    expect(await flags()).toEqual({ "Bob w": true, "Carol": true });
  });
});
