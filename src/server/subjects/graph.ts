import { broaderOnly } from "../text/broader";
import { and, eq, inArray, or, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { queryRows } from "../db/rows";
import { chunks, facts, mentions, texts } from "../db/schema";
import { inIds, type PurgedTable, type Tally } from "./tally";

/*
 * The graph side of a purge, within one dataset: find the subject's texts, then delete them and
 * everything stored from them, keeping the full-text statistics equal to the chunks that remain.
 */

export type Subject = { userId: string } | { entityId: string };

/** What a purge removed from one dataset's graph; the run-log side redacts what cites it. */
export interface Gone {
  textIds: string[];
  chunkIds: string[];
  factIds: string[];
  entityIds: string[];
  /** the remember runs that stored the deleted texts */
  runIds: string[];
}

/** A subject's texts in one dataset, and the facts about the purged entity with the text that holds each. */
export interface Found {
  textIds: string[];
  facts: { id: string; textId: string }[];
}

/** The texts to delete: the user's, or every text that names the entity or states a fact about it. */
export async function subjectTexts(tx: Db, datasetId: string, subject: Subject): Promise<Found> {
  if ("userId" in subject) {
    const rows = await tx
      .select({ id: texts.id })
      .from(texts)
      .where(and(eq(texts.datasetId, datasetId), eq(texts.userId, subject.userId)));
    return { textIds: rows.map((r) => r.id), facts: [] };
  }
  const e = subject.entityId;
  const about = await tx
    .select({ id: facts.id, textId: facts.textId })
    .from(facts)
    .where(and(eq(facts.datasetId, datasetId), or(eq(facts.subjectId, e), eq(facts.objectId, e))));
  // mentions also hold the texts that re-stated a fact about the entity (duplicates)
  const named = await queryRows<{ text_id: string }>(
    tx,
    sql`SELECT DISTINCT text_id FROM gb_mentions
        WHERE dataset_id = ${datasetId}
          AND ((target_kind = 'entity' AND target_id = ${e}) OR (target_kind = 'fact' AND target_id IN ${inIds(about.map((f) => f.id))}))`,
  );
  return { textIds: [...new Set([...about.map((f) => f.textId), ...named.map((r) => r.text_id)])], facts: about };
}

/**
 * The found texts in batches of at most `size`, each with the facts about the entity that those
 * texts hold (a fact goes with its text). At least one batch, so that a purge by userId also
 * redacts the runs that stored nothing.
 */
export function batches(found: Found, size: number): { textIds: string[]; factIds: string[] }[] {
  const out: { textIds: string[]; factIds: string[] }[] = [];
  for (let i = 0; i === 0 || i < found.textIds.length; i += size) {
    const textIds = found.textIds.slice(i, i + size);
    const mine = new Set(textIds);
    out.push({ textIds, factIds: found.facts.filter((f) => mine.has(f.textId)).map((f) => f.id) });
  }
  return out;
}

/** Takes the chunks' lexemes out of the dataset's full-text statistics, as store added them. */
async function uncountTerms(tx: Db, datasetId: string, chunkIds: string[]): Promise<number> {
  const chunkIn = inIds(chunkIds);
  await tx.execute(sql`
    WITH gone AS (
      SELECT lexeme, count(*)::int AS n
      FROM gb_chunks c CROSS JOIN LATERAL unnest(tsvector_to_array(c.search_tsv)) AS lexeme
      WHERE c.dataset_id = ${datasetId} AND c.id IN ${chunkIn}
      GROUP BY lexeme)
    UPDATE gb_term_stats s SET df = s.df - gone.n FROM gone
    WHERE s.dataset_id = ${datasetId} AND s.lexeme = gone.lexeme`);
  await tx.execute(sql`
    WITH gone AS (
      SELECT l.lexeme, count(*)::int AS n
      FROM gb_chunks c CROSS JOIN LATERAL (${broaderOnly(sql`c`)}) AS l(lexeme)
      WHERE c.dataset_id = ${datasetId} AND c.id IN ${chunkIn}
      GROUP BY l.lexeme)
    UPDATE gb_term_stats s SET bdf = s.bdf - gone.n FROM gone
    WHERE s.dataset_id = ${datasetId} AND s.lexeme = gone.lexeme`);
  const [dropped] = await queryRows<{ n: number }>(
    tx,
    sql`WITH d AS (DELETE FROM gb_term_stats WHERE dataset_id = ${datasetId} AND df <= 0 AND bdf <= 0 RETURNING 1) SELECT count(*)::int AS n FROM d`,
  );
  await tx.execute(sql`
    UPDATE gb_search_stats st SET chunks = st.chunks - g.n, lexemes = st.lexemes - g.l
    FROM (SELECT count(*)::int AS n, coalesce(sum(length(search_tsv)), 0)::int AS l
          FROM gb_chunks WHERE dataset_id = ${datasetId} AND id IN ${chunkIn}) g
    WHERE st.dataset_id = ${datasetId}`);
  return dropped?.n ?? 0;
}

/**
 * Deletes some of the subject's texts in one dataset (a batch of subjectTexts) and what was stored
 * from them; adds to `deleted`. A fact another text also stated is moved to that text, which may
 * be one of a later batch: it goes with that one.
 */
export async function purgeGraph(
  tx: Db,
  datasetId: string,
  subject: Subject,
  found: { textIds: string[]; factIds: string[] },
  deleted: Tally<PurgedTable>,
): Promise<Gone> {
  const textIn = inIds(found.textIds);
  const runs = await tx.selectDistinct({ runId: texts.runId }).from(texts).where(and(eq(texts.datasetId, datasetId), inArray(texts.id, textIn)));
  const chunkRows = await tx.select({ id: chunks.id }).from(chunks).where(and(eq(chunks.datasetId, datasetId), inArray(chunks.textId, textIn)));
  // A fact someone else also stated (a mention from a text that stays) is theirs too: it is kept,
  // with its provenance moved to their text, unless it is about the purged entity itself.
  await tx.execute(sql`
    UPDATE gb_facts f SET text_id = m.text_id, chunk_id = m.chunk_id, created_run_id = m.run_id
    FROM (SELECT DISTINCT ON (target_id) target_id, text_id, chunk_id, run_id FROM gb_mentions
          WHERE dataset_id = ${datasetId} AND target_kind = 'fact' AND text_id NOT IN ${textIn}
          ORDER BY target_id, text_id) m
    WHERE f.dataset_id = ${datasetId} AND f.id = m.target_id AND f.text_id IN ${textIn}
      AND f.id NOT IN ${inIds(found.factIds)}`);
  const factRows = await tx
    .select({ id: facts.id })
    .from(facts)
    .where(and(eq(facts.datasetId, datasetId), or(inArray(facts.textId, textIn), inArray(facts.id, inIds(found.factIds)))));
  const factIds = factRows.map((f) => f.id);
  const factIn = inIds(factIds);
  // Entities the deleted texts supported: deleted below only if nothing else supports them.
  const supported = await queryRows<{ id: string }>(
    tx,
    sql`SELECT target_id AS id FROM gb_mentions WHERE dataset_id = ${datasetId} AND target_kind = 'entity' AND text_id IN ${textIn}
        UNION SELECT subject_id FROM gb_facts WHERE dataset_id = ${datasetId} AND id IN ${factIn}
        UNION SELECT object_id FROM gb_facts WHERE dataset_id = ${datasetId} AND id IN ${factIn} AND object_id IS NOT NULL`,
  );
  const chunkIds = chunkRows.map((c) => c.id);

  deleted.gb_term_stats += await uncountTerms(tx, datasetId, chunkIds);
  const mentionRows = await tx
    .delete(mentions)
    .where(
      and(
        eq(mentions.datasetId, datasetId),
        or(inArray(mentions.textId, textIn), and(eq(mentions.targetKind, "fact"), inArray(mentions.targetId, factIn))),
      ),
    )
    .returning({ chunkId: mentions.chunkId });
  deleted.gb_mentions += mentionRows.length;
  deleted.gb_facts += (await tx.delete(facts).where(and(eq(facts.datasetId, datasetId), inArray(facts.id, factIn))).returning({ id: facts.id })).length;
  // A fact retired by a deleted one stays retired (expired_at, invalid_at), by nothing we still hold.
  await tx
    .update(facts)
    .set({ invalidatedBy: null })
    .where(and(eq(facts.datasetId, datasetId), inArray(facts.invalidatedBy, factIn)));
  deleted.gb_chunks += (await tx.delete(chunks).where(and(eq(chunks.datasetId, datasetId), inArray(chunks.id, inIds(chunkIds)))).returning({ id: chunks.id })).length;
  deleted.gb_texts += (await tx.delete(texts).where(and(eq(texts.datasetId, datasetId), inArray(texts.id, textIn))).returning({ id: texts.id })).length;
  // The purged entity is a candidate too: its mentions and facts are all gone by now.
  const candidates = [...supported.map((s) => s.id), ...("entityId" in subject ? [subject.entityId] : [])];
  const orphans = await queryRows<{ id: string }>(
    tx,
    sql`DELETE FROM gb_entities e
        WHERE e.dataset_id = ${datasetId} AND e.id IN ${inIds(candidates)}
          AND NOT EXISTS (SELECT 1 FROM gb_mentions m WHERE m.dataset_id = e.dataset_id AND m.target_kind = 'entity' AND m.target_id = e.id)
          AND NOT EXISTS (SELECT 1 FROM gb_facts f WHERE f.dataset_id = e.dataset_id AND f.subject_id = e.id)
          AND NOT EXISTS (SELECT 1 FROM gb_facts f WHERE f.dataset_id = e.dataset_id AND f.object_id = e.id)
        RETURNING e.id`,
  );
  deleted.gb_entities += orphans.length;
  return { textIds: found.textIds, chunkIds, factIds, entityIds: orphans.map((o) => o.id), runIds: runs.map((r) => r.runId) };
}
