import { randomUUID } from "node:crypto";
import type { ExtractedGraph, ResolveEdges, ResolveEdgesInput } from "../models/types";
import type { Candidates, EntityCandidate, FactCandidate } from "./candidates";
import { nameKey } from "../text/name-key";

/*
 * resolve_edges: what the new entities and facts of one chunk are, given what the dataset knows.
 *
 * Entities: an existing entity with the same name key is the same entity, without asking. Every
 * other candidate (a shared alias, a similar name, a near embedding) goes to the model, however
 * close: "Worker3" and "Worker8" are one letter apart and two people, and so are two Alices who
 * share the alias "Alice". No candidate: a new entity.
 * Facts: candidates are only the current facts with the same subject and predicate, or the same
 * subject and object (a dataset-wide search retires unrelated facts: Graphiti #1728). The same
 * subject, predicate and object is a duplicate without asking; the rest goes to the model, which
 * says duplicate, contradiction or new. A contradicted fact is kept, with invalid_at (when the
 * new one began to hold) and expired_at (now): never deleted. One model call per chunk at most.
 */

export interface PlannedEntity {
  id: string;
  isNew: boolean;
  name: string;
  type: string;
  /** every alias the entity has after this chunk (new ones merged into an existing entity) */
  aliases: string[];
  /** aliases this chunk adds to an existing entity */
  addedAliases: string[];
  keys: string[];
}

export interface PlannedFact {
  id: string;
  subjectId: string;
  predicate: string;
  objectId: string | null;
  objectValue: string | null;
  sentence: string;
  validAt: Date | null;
  invalidAt: Date | null;
}

export interface Invalidation {
  factId: string;
  invalidAt: Date;
  by: string;
}

export interface Plan {
  entities: PlannedEntity[];
  /** facts to insert */
  facts: PlannedFact[];
  /** existing facts this chunk states again (mentions), and the time to set on those that had none */
  duplicates: { factId: string; validAt: Date | null }[];
  invalidations: Invalidation[];
  /** what was asked of the model, if anything */
  asked: ResolveEdgesInput | null;
}

export interface ResolveContext {
  graph: ExtractedGraph;
  candidates: Candidates;
  /** when the text says it happened: a contradiction with no date of its own starts then */
  occurredAt: Date | null;
  now: Date;
}

const parseDate = (v: string | null): Date | null => {
  if (!v) return null;
  const d = new Date(/^\d{4}$/.test(v) ? `${v}-01-01` : v);
  return Number.isNaN(d.getTime()) ? null : d;
};

/** The chunk's entities, one per normalised name, with their aliases merged. */
function chunkEntities(graph: ExtractedGraph) {
  const out: { name: string; type: string; aliases: string[]; keys: string[] }[] = [];
  for (const e of graph.entities) {
    const keys = [nameKey(e.name), ...e.aliases.map(nameKey)].filter(Boolean);
    const same = out.find((o) => o.keys.includes(keys[0] ?? ""));
    if (same) {
      for (const a of e.aliases) if (!same.aliases.includes(a) && a !== same.name) same.aliases.push(a);
      same.keys = [...new Set([...same.keys, ...keys])];
    } else out.push({ name: e.name, type: e.type, aliases: [...e.aliases], keys: [...new Set(keys)] });
  }
  return out;
}

/** The existing entity named exactly like ours (of our type when there are several), or null. */
function sameName(key: string, type: string, cands: EntityCandidate[]): EntityCandidate | null {
  const hits = cands.filter((c) => c.via === "exact" && c.nameKey === key);
  return hits.find((c) => c.type === type) ?? hits[0] ?? null;
}

/** The candidates the model decides on for an entity with these keys: found by one of them. */
const candidatesFor = (keys: string[], cands: EntityCandidate[]): EntityCandidate[] =>
  cands.filter((c) => (c.via === "exact" ? keys.some((k) => k === c.nameKey || c.aliasKeys.includes(k)) : keys.includes(c.forKey ?? "")));

const objectKey = (f: { objectId: string | null; objectValue: string | null }) => f.objectId ?? `=${nameKey(f.objectValue ?? "")}`;

export async function resolvePlan(ctx: ResolveContext, ask: (input: ResolveEdgesInput) => Promise<ResolveEdges>): Promise<Plan> {
  const ents = chunkEntities(ctx.graph);
  const resolved = new Map<number, EntityCandidate | null>();
  const ambiguous: ResolveEdgesInput["entities"] = [];
  const refs = new Map<string, EntityCandidate>();
  ents.forEach((e, n) => {
    const same = sameName(nameKey(e.name), e.type, ctx.candidates.entities);
    if (same) return void resolved.set(n, same);
    const near = candidatesFor(e.keys, ctx.candidates.entities);
    if (near.length === 0) return void resolved.set(n, null);
    ambiguous.push({
      n,
      name: e.name,
      type: e.type,
      aliases: e.aliases,
      candidates: near.map((c) => {
        const ref = `E${refs.size + 1}`;
        refs.set(ref, c);
        return { ref, name: c.name, type: c.type, aliases: c.aliases, summary: c.summary };
      }),
    });
  });

  // Facts: subject and object mapped to entity ids (new ones get theirs now).
  const ids = ents.map((_, n) => resolved.get(n)?.id ?? randomUUID());
  const entityOf = (name: string): number => {
    const k = nameKey(name);
    return ents.findIndex((e) => e.keys.includes(k));
  };
  // an ambiguous entity's facts are compared with those of every candidate it may be
  const possibleIds = (n: number): string[] => {
    const a = ambiguous.find((x) => x.n === n);
    return a ? [ids[n]!, ...a.candidates.map((c) => refs.get(c.ref)!.id)] : [ids[n]!];
  };

  const facts: (PlannedFact & { subjectN: number })[] = [];
  for (const f of ctx.graph.facts) {
    const s = entityOf(f.subject);
    if (s < 0) continue; // the extractor guarantees subjects are entities; be safe anyway
    const o = f.objectIsEntity ? entityOf(f.object) : -1;
    const planned = {
      id: randomUUID(),
      subjectN: s,
      subjectId: ids[s]!,
      predicate: f.predicate,
      objectId: o >= 0 ? ids[o]! : null,
      objectValue: o >= 0 ? null : f.object,
      sentence: f.sentence,
      validAt: parseDate(f.validAt),
      invalidAt: parseDate(f.invalidAt),
    };
    if (!facts.some((x) => x.subjectId === planned.subjectId && x.predicate === planned.predicate && objectKey(x) === objectKey(planned))) {
      facts.push(planned);
    }
  }

  const factRefs = new Map<string, FactCandidate>();
  const duplicates: Plan["duplicates"] = [];
  const toAsk: ResolveEdgesInput["facts"] = [];
  const pending = new Map<number, PlannedFact & { subjectN: number }>();
  facts.forEach((f, n) => {
    const subjects = possibleIds(f.subjectN);
    const objectIds = f.objectId ? [f.objectId] : [];
    const cands = ctx.candidates.facts.filter(
      (c) =>
        subjects.includes(c.subjectId) &&
        (c.predicate === f.predicate ||
          (c.objectId !== null && objectIds.includes(c.objectId)) ||
          (c.objectValue !== null && f.objectValue !== null && nameKey(c.objectValue) === nameKey(f.objectValue))),
    );
    const dup = cands.find((c) => c.subjectId === f.subjectId && c.predicate === f.predicate && objectKey(c) === objectKey(f));
    if (dup) return void duplicates.push({ factId: dup.id, validAt: !dup.validAt && f.validAt ? f.validAt : null });
    pending.set(n, f);
    if (cands.length === 0) return;
    toAsk.push({
      n,
      subject: ents[f.subjectN]!.name,
      predicate: f.predicate,
      object: f.objectId ? (ents[ids.indexOf(f.objectId)]?.name ?? "") : (f.objectValue ?? ""),
      sentence: f.sentence,
      validAt: f.validAt?.toISOString() ?? null,
      candidates: cands.map((c) => {
        const ref = `F${factRefs.size + 1}`;
        factRefs.set(ref, c);
        return { ref, subject: c.subjectName, predicate: c.predicate, object: c.objectName ?? c.objectValue ?? "", sentence: c.sentence, validAt: c.validAt?.toISOString() ?? null };
      }),
    });
  });

  const asked = ambiguous.length > 0 || toAsk.length > 0 ? { entities: ambiguous, facts: toAsk } : null;
  const answer: ResolveEdges = asked ? await ask(asked) : { entities: [], facts: [] };

  // Apply the entity answers: a match takes the existing id, in the facts too.
  for (const a of answer.entities) {
    const c = a.match ? refs.get(a.match) : undefined;
    if (!c) continue;
    const old = ids[a.n]!;
    resolved.set(a.n, c);
    ids[a.n] = c.id;
    for (const f of facts) {
      if (f.subjectId === old) f.subjectId = c.id;
      if (f.objectId === old) f.objectId = c.id;
    }
  }

  const invalidations: Invalidation[] = [];
  for (const a of answer.facts) {
    const f = pending.get(a.n);
    if (!f) continue;
    // a judgement about a candidate of another entity than the one chosen does not apply
    const applies = (c: FactCandidate | undefined): c is FactCandidate => !!c && c.subjectId === f.subjectId;
    const dup = a.duplicateOf ? factRefs.get(a.duplicateOf) : undefined;
    if (applies(dup)) {
      pending.delete(a.n);
      duplicates.push({ factId: dup.id, validAt: !dup.validAt && f.validAt ? f.validAt : null });
      continue;
    }
    for (const ref of a.contradicts) {
      const old = factRefs.get(ref);
      if (!applies(old)) continue;
      if (f.validAt && old.validAt && f.validAt < old.validAt) {
        // the new fact is older news: it held until the known one began
        f.invalidAt ??= old.validAt;
      } else if (!invalidations.some((i) => i.factId === old.id)) {
        invalidations.push({ factId: old.id, invalidAt: f.validAt ?? ctx.occurredAt ?? ctx.now, by: f.id });
      }
    }
  }

  const entities: PlannedEntity[] = ents.map((e, n) => {
    const match = resolved.get(n) ?? null;
    if (!match) return { id: ids[n]!, isNew: true, name: e.name, type: e.type, aliases: e.aliases, addedAliases: [], keys: e.keys };
    const known = new Set([match.nameKey, ...match.aliasKeys]);
    const added = [e.name, ...e.aliases].filter((a) => !known.has(nameKey(a)));
    return { id: match.id, isNew: false, name: match.name, type: match.type, aliases: [...match.aliases, ...added], addedAliases: added, keys: e.keys };
  });

  return {
    entities,
    facts: [...pending.values()].map(({ subjectN: _s, ...f }) => f),
    duplicates,
    invalidations,
    asked,
  };
}
