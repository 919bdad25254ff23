import { randomUUID } from "node:crypto";
import type { ResolveEdges, ResolveEdgesInput } from "../models/types";
import { applyAnswer } from "./resolve-edges/apply-answer";
import { draftFacts } from "./resolve-edges/draft-facts";
import { matchEntities } from "./resolve-edges/match-entities";
import { buildQuestion } from "./resolve-edges/question";
import type { Plan, ResolveContext } from "./resolve-edges/types";

export type { Duplicate, Invalidation, Plan, PlannedEntity, PlannedFact, ResolveContext } from "./resolve-edges/types";

/*
 * resolve_edges: what the new entities and facts of one chunk are, given what the dataset knows
 * (load_candidates). Four pure phases (resolve-edges/), each testable without a database or a
 * model: match the entities, draft the facts, build the question, apply the answer. One model
 * call per chunk at most, none when nothing is uncertain.
 */

const NOTHING_ASKED: ResolveEdges = { entities: [], facts: [] };

export async function resolvePlan(ctx: ResolveContext, ask: (input: ResolveEdgesInput) => Promise<ResolveEdges>): Promise<Plan> {
  const newId = ctx.newId ?? randomUUID;
  const matching = matchEntities(ctx.graph, ctx.candidates.entities, newId);
  const drafts = draftFacts(ctx.graph, matching, ctx.candidates.facts, newId);
  const question = buildQuestion(matching, drafts);
  const answer = question.input ? await ask(question.input) : NOTHING_ASKED;
  return applyAnswer({ matching, drafts, question, answer, occurredAt: ctx.occurredAt, now: ctx.now });
}
