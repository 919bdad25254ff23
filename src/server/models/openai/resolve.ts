import { ModelError, ResolveEdges, type CallOptions, type ModelResult, type ResolveEdgesInput } from "../types";
import { RESOLVE_PROMPT, resolveUserMessage } from "./prompts";
import { structuredCall, type CallContext } from "./structured";

/**
 * resolve_edges as one structured call. Only items with candidates are sent (the others are new
 * by definition). The answer is checked beyond its schema:
 * - every ref must be one of the candidates of that same n, and every n one that was asked,
 *   and no n may be answered twice: anything else is a ModelError (the model is answering a
 *   different question, and acting on it could merge or retire the wrong things);
 * - an n the model left out is filled in as "new" (match null; duplicateOf null, contradicts
 *   []), the answer that changes nothing stored: failing a whole remember run over one skipped
 *   row would cost more. The numbers filled in are noted in the response as `filled_in`.
 * The value has one row per input n, in input order; a ref given as the duplicate is dropped
 * from `contradicts`.
 */
export async function resolveCall(ctx: CallContext, opts: CallOptions, input: ResolveEdgesInput): Promise<ModelResult<ResolveEdges>> {
  const asked: ResolveEdgesInput = {
    entities: input.entities.filter((e) => e.candidates.length > 0),
    facts: input.facts.filter((f) => f.candidates.length > 0),
  };
  if (asked.entities.length === 0 && asked.facts.length === 0) {
    const value = {
      entities: input.entities.map((e) => ({ n: e.n, match: null })),
      facts: input.facts.map((f) => ({ n: f.n, duplicateOf: null, contradicts: [] })),
    };
    return { value, model: opts.model ?? ctx.chatModel, request: null, response: { skipped: "no item has candidates" }, tokensIn: 0, tokensOut: 0 };
  }
  const r = await structuredCall(ctx, opts, { name: "resolution", schema: ResolveEdges, system: RESOLVE_PROMPT, user: resolveUserMessage(asked) });
  const fail = (message: string): ModelError =>
    new ModelError(`answer from model ${r.model} ${message}`, { model: r.model, request: r.request, response: r.response });

  const entityRefs = new Map(asked.entities.map((e) => [e.n, new Set(e.candidates.map((c) => c.ref))]));
  const factRefs = new Map(asked.facts.map((f) => [f.n, new Set(f.candidates.map((c) => c.ref))]));
  const checkRef = (kind: string, n: number, refs: ReadonlySet<string>, ref: string): void => {
    if (!refs.has(ref)) throw fail(`names ref "${ref}" for ${kind} n=${n}, which is not among its candidates (${[...refs].join(", ")})`);
  };

  const matches = new Map<number, string | null>();
  for (const row of r.value.entities) {
    const refs = entityRefs.get(row.n);
    if (!refs) throw fail(`answers entity n=${row.n}, which was not asked`);
    if (matches.has(row.n)) throw fail(`answers entity n=${row.n} twice`);
    if (row.match !== null) checkRef("entity", row.n, refs, row.match);
    matches.set(row.n, row.match);
  }
  const verdicts = new Map<number, { duplicateOf: string | null; contradicts: string[] }>();
  for (const row of r.value.facts) {
    const refs = factRefs.get(row.n);
    if (!refs) throw fail(`answers fact n=${row.n}, which was not asked`);
    if (verdicts.has(row.n)) throw fail(`answers fact n=${row.n} twice`);
    if (row.duplicateOf !== null) checkRef("fact", row.n, refs, row.duplicateOf);
    for (const ref of row.contradicts) checkRef("fact", row.n, refs, ref);
    const contradicts = [...new Set(row.contradicts)].filter((ref) => ref !== row.duplicateOf);
    verdicts.set(row.n, { duplicateOf: row.duplicateOf, contradicts });
  }

  const missing = {
    entities: asked.entities.filter((e) => !matches.has(e.n)).map((e) => e.n),
    facts: asked.facts.filter((f) => !verdicts.has(f.n)).map((f) => f.n),
  };
  const value: ResolveEdges = {
    entities: input.entities.map((e) => ({ n: e.n, match: matches.get(e.n) ?? null })),
    facts: input.facts.map((f) => ({ n: f.n, ...(verdicts.get(f.n) ?? { duplicateOf: null, contradicts: [] }) })),
  };
  const filled = missing.entities.length + missing.facts.length > 0;
  const response = filled && r.response && typeof r.response === "object" ? { ...r.response, filled_in: missing } : r.response;
  return { ...r, value, response };
}
