import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { App } from "../app";
import type { Caller } from "../auth/caller";
import { allDatasets } from "../datasets/datasets";
import { getEntity, listEntities } from "../graph/read";
import { ask } from "../query/ask";
import { submitRemember } from "../remember/submit";
import { getRun } from "../runs/get";
import { capture, context } from "../stm/stm";
import { purge } from "../subjects/purge-verb";
import { requireRole, toolError } from "./errors";
import { ForgetArgs, GetRunArgs, QueryArgs, RememberArgs, SearchArgs, StmContextArgs, StmUpdateArgs } from "./schemas";

/*
 * The tools: each calls one verb with the caller, as the tRPC router does, after the router's
 * role check (reads: any role; remember and stm_update: member; forget: admin). The verbs keep a
 * key to its team's datasets (another's is not found). A result is JSON, as text and as
 * structuredContent; a failure is a result with isError (errors.ts), never a thrown error, which
 * the SDK would send with its message as it is.
 */

export interface ToolContext {
  app: App;
  caller: Caller;
}

/** A verb's answer as a tool result (Dates as ISO strings). */
function ok(value: object): CallToolResult {
  const text = JSON.stringify(value);
  return { content: [{ type: "text", text }], structuredContent: JSON.parse(text) as Record<string, unknown> };
}

function guarded<A>(tool: string, run: (args: A) => Promise<object>): (args: A) => Promise<CallToolResult> {
  return async (args) => {
    try {
      return ok(await run(args));
    } catch (e) {
      return toolError(tool, e);
    }
  };
}

const WRITES = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false };
const READS = { readOnlyHint: true, openWorldHint: false };

export function registerTools(server: McpServer, { app, caller }: ToolContext): void {
  const db = app.database.db;

  server.registerTool(
    "remember",
    {
      title: "Remember a text",
      description:
        "Store a text in long-term memory. Use it when the user says something worth knowing later: facts about people, " +
        "places, plans, preferences, events. Facts are extracted from the text in the background, linked to entities and " +
        "dated; a newer fact replaces one it contradicts. Returns rememberRunId and status (queued, started, succeeded, " +
        "failed); with wait: true it returns when the run has ended, with each stage's status. Needs the role member or above.",
      inputSchema: RememberArgs,
      annotations: WRITES,
    },
    guarded("remember", async (input) => {
      requireRole(caller, "member", "remember");
      const submitted = await submitRemember({ app, caller, input });
      if (!input.wait) return submitted;
      const run = await getRun({ db, scope: caller, kind: "remember", id: submitted.rememberRunId });
      return { ...submitted, stages: run.stages.map((s) => ({ name: s.name, status: s.status, error: s.error })) };
    }),
  );

  server.registerTool(
    "query",
    {
      title: "Ask long-term memory",
      description:
        "Answer a question from long-term memory. Use it before answering anything that depends on what was remembered " +
        "(who, where, when, what someone prefers). Returns the answer, whose [n] marks cite sources, and the sources given " +
        "to it: n, kind (fact or summary), text, id, source.textId and source.chunkId (the remembered text it came from), " +
        "validAt and invalidAt. When nothing is known the answer says so. queryRunId names the run (get_run).",
      inputSchema: QueryArgs,
      annotations: READS,
    },
    guarded("query", (input) => ask({ app, caller, input })),
  );

  server.registerTool(
    "search_memory",
    {
      title: "Find entities by name",
      description:
        "Look up entities (people, places, organisations, things) by part of a name or alias, with what is currently known " +
        "about each: its current facts as sentences, with when they became and stopped being true. Use it to see what memory " +
        "holds about someone or something you can name; for a question, use query. Returns entities with id, name, type, " +
        "aliases, summary and facts.",
      inputSchema: SearchArgs,
      annotations: READS,
    },
    guarded("search_memory", async (input) => {
      const { items } = await listEntities({ db, scope: caller, input });
      const entities = [];
      for (const e of items) {
        const { current } = await getEntity({ db, scope: caller, input: { dataset: input.dataset, id: e.id } });
        const facts = current.map((f) => ({ id: f.id, sentence: f.sentence, validAt: f.validAt, invalidAt: f.invalidAt, textId: f.textId }));
        entities.push({ id: e.id, name: e.name, type: e.type, aliases: e.aliases, summary: e.summary, facts });
      }
      return { entities };
    }),
  );

  server.registerTool(
    "get_run",
    {
      title: "Get a run",
      description:
        "A remember or query run: its status (queued, started, succeeded, failed), error, and each stage's status and " +
        "timing. Use it to follow a remember sent without wait, or to see how a query was answered.",
      inputSchema: GetRunArgs,
      annotations: READS,
    },
    guarded("get_run", ({ kind, id }) => getRun({ db, scope: caller, kind, id })),
  );

  server.registerTool(
    "stm_context",
    {
      title: "Read short-term memory",
      description:
        "The short-term memory of a conversation scope (a user in a channel): this channel's summary and notes (its last " +
        "messages while it has none) and the same user's other channels, as `text` ready for a prompt, with the entries it " +
        "was made from and the cadence (turns since the last summary). Use it at the start of a turn.",
      inputSchema: StmContextArgs,
      annotations: READS,
    },
    guarded("stm_context", (input) => context({ app, caller, input })),
  );

  server.registerTool(
    "stm_update",
    {
      title: "Add a turn to short-term memory",
      description:
        "Keep a conversation turn's messages in the short-term memory of its scope (a user in a channel, on a server, " +
        "with a persona), for stm_context in later turns. Use it after each turn; what must be known long-term goes to " +
        "remember. Returns the keys written, the messages the channel holds and the cadence. Needs the role member or above.",
      inputSchema: StmUpdateArgs,
      annotations: WRITES,
    },
    guarded("stm_update", (input) => {
      requireRole(caller, "member", "stm_update");
      return capture({ app, caller, input });
    }),
  );

  server.registerTool(
    "forget",
    {
      title: "Forget a person",
      description:
        "Forget a person everywhere, irreversibly: the texts remembered with their userId (or about an entity), the facts " +
        "only those texts support, their short-term memory and their runs' data. Use it only when asked to erase someone's " +
        "data. Returns a receipt: the datasets purged and the rows deleted and redacted per table. Needs the role admin or above.",
      inputSchema: ForgetArgs,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    },
    guarded("forget", (input) => {
      requireRole(caller, "admin", "forget");
      return purge({ db, caller, input, stmCache: app.stmCache });
    }),
  );

  server.registerTool(
    "list_datasets",
    {
      title: "List datasets",
      description: "The datasets (memory spaces) this key can use, by name: the `dataset` the other tools take.",
      annotations: READS,
    },
    guarded("list_datasets", async () => ({ datasets: (await allDatasets({ db, scope: caller })).map((d) => ({ name: d.name, createdAt: d.createdAt })) })),
  );
}
