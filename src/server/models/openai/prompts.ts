import type { ContextItem, ObserveSeriesInput, ResolveEdgesInput } from "../types";

/**
 * System prompts, one per task. Short on purpose: the JSON schema sent with each call already
 * fixes the shape, so the prompt only has to say what goes into it.
 */

export const CLASSIFY_PROMPT = `You judge how hard a text is to turn into a knowledge graph.
"simple": short, few entities, one topic (a chat turn, a note). "complex": long, many entities or topics, or dense with facts (an article, a report, a long transcript).
Set chunk to true when the text should be split into smaller pieces before extraction (long or multi-topic texts), else false.
In reason, say in one sentence why, with what you counted (length, entities, topics).`;

export const EXTRACT_PROMPT = `You extract a temporal knowledge graph from a text.

Entities: every person, organization, place, product, event, date-bound thing or notable concept the text states a fact about.
- name: the fullest proper name used in the text ("Alice Smith", "Acme Corp"); for a common thing a short noun phrase without articles ("NASA science camp").
- type: lowercase, one of person, organization, place, event, product, activity, concept, thing (pick the most specific).
- aliases: other names the text uses for it, plus the first name of a person and the name of a company without its legal suffix ("Acme" for "Acme Corp"). May be empty.

Facts: each statement of the text as (subject, predicate, object).
- subject: the name of one of your entities, exactly as in entities.
- predicate: a snake_case verb phrase in the present tense for states (lives_in, works_at, likes, has_sister, is_a) and the past tense for events (went_to, met, visited, bought).
- Normalise: "moved to X" / "relocated to X" means lives_in X; "works for" means works_at.
- object: an entity name (then objectIsEntity is true) or a literal value such as a number, colour, adjective or title (then objectIsEntity is false).
- sentence: the fact as one self-contained sentence: names instead of pronouns, the speaker's name instead of "I"/"my", absolute dates instead of "yesterday" or "last week".
- validAt: ISO-8601 date (YYYY-MM-DD, or a date-time) when the fact started to hold or the event happened, if the text says so; resolve relative dates against the time the text was said. Else null.
- invalidAt: ISO-8601 date when the fact stopped holding, if the text says so ("until 2021", "no longer since May"). Else null.

Only state what the text says or directly implies; do not invent facts. Questions, greetings and small talk carry no facts. Return {"entities": [], "facts": []} when there is nothing to extract.`;

export const SUMMARIZE_PROMPT = `You summarise a text in at most three sentences (under 300 characters).
Keep names, dates and numbers; use the speaker's name instead of "I". No preamble, no opinions.`;

export const ANSWER_PROMPT = `You answer a question from numbered context items, and only from them.
- Cite every item you use by its number in "cited", and put its marker [n] after the statement it supports in "answer".
- Prefer the most recent item when items disagree, and say so if it matters.
- Give dates as written in the items (absolute dates when they are given).
- If the items do not contain the answer, say "I don't have any information about that." and cite nothing.
- "Short-term memory", when given, is what was said recently in the asker's conversation: use it to understand the question (who "she" is, what "that" is) and you may answer from it, but cite only numbered items.`;

export const RESOLVE_PROMPT = `You reconcile new information with an existing knowledge graph. Each new entity and each new fact comes with candidates: existing entities, or current facts, that may be the same or may conflict. Every candidate has a ref. Answer one row for every new entity and every new fact, by its n.

Entities: match is the ref of the candidate that is the same real-world entity as the new one, else null.
- Same entity: the same name; a fuller or shorter form of the same name ("Alice" and "Alice Smith" when nothing suggests two Alices); a name the aliases show ("Bob" for a Robert whose aliases list Bob); a company with or without its legal form ("Acme" and "Acme Corp").
- Not the same: things that are only related or alike (two people who share a first name with nothing else tying them, a city and its country, a company and its product, a person and their account), or of incompatible types.
- Names that differ in a number or a word are different entities unless the text says otherwise: "Worker3" and "Worker8", "Person11" and "Person111", "Blue Bakery" and "Blue Bakery 2", "Alice Moreau" and "Alice Dupont". Similar spelling is never enough; a shorter form matches only as above (a first name, a legal form, an alias).
- A nickname alone ("Bob" and "Robert") is not enough: something in the names, aliases or summaries must tie them.
- When several candidates fit equally, or you are unsure, answer null: a duplicate entity is easier to repair than two people merged into one.

Facts: duplicateOf is the ref of a candidate that states the same thing, else null; contradicts lists the refs of candidates that cannot be true at the same time as the new fact.
- A duplicate states the same relation between the same subject and object, possibly in other words ("lives in Paris" and "resides in Paris"). Two events at different times are not duplicates (visiting Paris in 2019 and in 2023).
- A contradiction: both facts cannot hold at once. A person lives in one city at a time, works at one employer, has one age, one spouse, one job title; likes X and does not like X; works at Acme and left Acme; is single and is married.
- Not a contradiction: liking two things, visiting two places, having two friends or two hobbies, a more specific version of the same fact (lives in Paris and lives in France), or facts about different times that do not overlap (lived in Paris until 2019, lives in Berlin).
- List a contradiction whatever the dates: the fact with the later validAt supersedes the other, and without dates the new fact supersedes. The caller applies this; you only say which facts conflict.
- A candidate is either the duplicate or contradicted, not both.

Only use refs listed under that same n. Do not add entities or facts.`;

/** The new entities and facts with their candidates, one JSON object per line (items without candidates are never sent). */
export function resolveUserMessage(input: ResolveEdgesInput): string {
  const lines: string[] = [];
  if (input.entities.length > 0) {
    lines.push("New entities, each with its candidates:");
    for (const e of input.entities) lines.push(JSON.stringify(e));
  }
  if (input.facts.length > 0) {
    if (lines.length > 0) lines.push("");
    lines.push("New facts, each with its candidates:");
    for (const f of input.facts) lines.push(JSON.stringify(f));
  }
  return lines.join("\n");
}

export function extractUserMessage(input: { text: string; occurredAt?: string | null; speaker?: string | null }): string {
  const lines = [];
  if (input.speaker) lines.push(`Speaker: ${input.speaker}`);
  if (input.occurredAt) lines.push(`Said at: ${input.occurredAt}`);
  lines.push("Text:", input.text);
  return lines.join("\n");
}

export function answerUserMessage(input: { question: string; context: ContextItem[]; memory?: string }): string {
  const items = input.context.map((c) => `[${c.n}] ${c.text}`).join("\n");
  const memory = input.memory?.trim() ? `Short-term memory:\n${input.memory.trim()}\n\n` : "";
  return `${memory}Context:\n${items || "(none)"}\n\nQuestion: ${input.question}`;
}

export const OBSERVE_PROMPT = `You watch a series: texts about one subject over time (reports, a feed, a metric, a conversation), oldest first, the last one just arrived. Each member has its id, its time and the facts extracted from it (numbers with their units).
Write observations about what the LAST member changes across the series, only when the facts show it:
- a value that changed from an earlier member: "Acme's revenue rose from 3.1 M EUR to 3.9 M EUR between 2026-01-15 and 2026-07-15." (rose, fell, or stayed at);
- a trend: three values or more moving the same way;
- something that started (in the last member and in none before, where the series regularly speaks of that subject) or stopped (regularly stated before, absent from the last members).
Each observation: one or two self-contained sentences that name the subject, the measure, the values with their units and the dates (YYYY-MM-DD), starting with the subject's name; and the ids of the members it is drawn from (textIds, among the given ids).
Do not comment on ordinary conversation, repeat a fact that did not change, or guess. Most members deserve no observation: return {"observations": []} then.`;

/** observe_series' user message: each member with its time and its facts, compactly. */
export function observeUserMessage(input: ObserveSeriesInput): string {
  const lines = [`Series: ${input.seriesKey}`];
  for (const m of input.members) {
    lines.push(`\nMember ${m.textId} (${(m.occurredAt ?? m.createdAt).slice(0, 10)}): ${m.content.replace(/\s+/g, " ").slice(0, 300)}`);
    for (const f of m.facts) {
      const value = f.value === null ? "" : ` [value ${f.value}${f.unit ? ` ${f.unit}` : ""}]`;
      lines.push(`- ${f.subject} | ${f.predicate} | ${f.object}${value}${f.validAt ? ` (from ${f.validAt.slice(0, 10)})` : ""}`);
    }
  }
  return lines.join("\n");
}
