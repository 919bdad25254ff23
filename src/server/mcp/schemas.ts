import { z } from "zod";
import { Instant } from "../input";
import type { RunKind } from "../../lib/stages";
import { EntitiesInput } from "../graph/schemas";
import { AskInput } from "../query/schemas";
import { RememberInput } from "../remember/schemas";
import { GetRunInput } from "../runs/schemas";
import { CaptureInput, ContextInput, MAX_CAPTURED, StmMessage } from "../stm/schemas";
import { PurgeInput } from "../subjects/schemas";

/*
 * The MCP tools' inputs: our verbs' own schemas, picked and given a description per field (the
 * model reads them in tools/list). The SDK turns each into JSON Schema with zod's toJSONSchema,
 * which cannot show a Date: an Instant field is taken as a string and piped into Instant, so
 * the SDK's parse still checks it and hands the verb a Date.
 */

// Instant reads a string or a Date; here it gets the string
const instantText = z.string().pipe(Instant as z.ZodType<Date, string>);
const WHEN = "an ISO 8601 date-time with offset (2019-06-01T12:00:00Z) or a date (2019-06-01)";

/** `schema` with a description on the fields `docs` names. */
function documented<T extends z.ZodObject>(schema: T, docs: Partial<Record<keyof T["shape"] & string, string>>): T {
  const described: Record<string, z.ZodType> = {};
  for (const [field, doc] of Object.entries(docs)) {
    const s = (schema.shape as Record<string, z.ZodType>)[field];
    if (s && typeof doc === "string") described[field] = s.describe(doc);
  }
  // the same field schemas with a description: the object's type is unchanged
  return schema.safeExtend(described) as T;
}

const DATASET = "The dataset (memory space) to use, e.g. \"default\"; list_datasets names those this key can use.";

export const RememberArgs = documented(
  RememberInput.pick({ dataset: true, text: true, userId: true, series: true, wait: true }).extend({ occurredAt: instantText.optional() }),
  {
    dataset: DATASET,
    text: "The text to remember: a message, a note, a document. Facts about people, places and events are extracted from it.",
    userId: "The person the text belongs to, as your app names them; forget finds their data by it.",
    series: "The series the text belongs to (a chat session, a feed …).",
    occurredAt: `When what the text says happened: ${WHEN}. Relative dates in the text are read against it.`,
    wait: "true: answer when the run has ended (its status and stages); false or absent: answer at once with the run id (see get_run).",
  },
);

export const QueryArgs = documented(AskInput.pick({ dataset: true, question: true, limit: true }).extend({ asOf: instantText.optional() }), {
  dataset: DATASET,
  question: "The question, in natural language.",
  limit: "The most sources to give the answering model (1–50, default 10).",
  asOf: `Answer from the facts that held at this time instead of the current ones: ${WHEN}.`,
});

/** the most entities one search_memory answers with (each with its facts): fewer than graph.entities pages */
const MAX_SEARCH_ENTITIES = 20;

export const SearchArgs = documented(
  EntitiesInput.pick({ dataset: true, search: true }).extend({
    limit: EntitiesInput.shape.limit.unwrap().max(MAX_SEARCH_ENTITIES).default(5),
  }),
  {
    dataset: DATASET,
    search: "Part of a name or alias (\"Mira\", \"Tromsø\"); absent: the entities in name order.",
    limit: `The most entities to return, each with its current facts (1–${MAX_SEARCH_ENTITIES}, default 5).`,
  },
);

export const GetRunArgs = documented(z.object({ kind: z.enum(["remember", "query"] as const satisfies readonly RunKind[]), id: GetRunInput.shape.id }).strict(), {
  kind: "remember for a remember run (remember's rememberRunId), query for a query run (query's queryRunId).",
  id: "The run's id.",
});

const SCOPE = "Where the conversation happens: userId and channelId, serverId (absent for a direct message), personaId (optional).";

export const StmContextArgs = documented(ContextInput, {
  dataset: DATASET,
  scope: SCOPE,
  mode: "How the user's other channels appear: distilled (summaries, notes), raw (last messages) or mixed (default).",
});

export const StmUpdateArgs = documented(
  CaptureInput.extend({ messages: z.array(StmMessage.extend({ at: instantText.optional() })).min(1).max(MAX_CAPTURED) }),
  {
    dataset: DATASET,
    scope: SCOPE,
    messages: `The turn's messages, oldest first (1–${MAX_CAPTURED}): role user or assistant, content, authorId (who wrote it), at (${WHEN}; default now).`,
  },
);

export const ForgetArgs = documented(PurgeInput, {
  dataset: "One dataset; absent: every dataset this key can use.",
  userId: "The person, as remember's userId named them. Give userId or entityId, not both.",
  entityId: "Or an entity of the graph (search_memory's id): the person as the memory knows them.",
});
