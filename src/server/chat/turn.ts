import { randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import type { App } from "../app";
import type { Caller } from "../auth/caller";
import { resolveDataset } from "../datasets/datasets";
import { errorKind, errorText } from "../errors";
import { queryRows } from "../db/rows";
import { recordedModels } from "../models/record";
import type { ChatMessage, ToolDef } from "../models/types";
import { ask } from "../query/ask";
import type { Source } from "../query/schemas";
import { submitRemember } from "../remember/submit";
import { detectIntent } from "../stm/intent";
import { capture, context, executeToolCall, upgrade, type UpgradeResult } from "../stm/stm";
import { stmTool, TOOL_NAME } from "../stm/tool";
import type { TurnInput } from "./schemas";

/*
 * chat.turn (#14): one chat turn with all of memory, for a bot that would rather not wire it up.
 *
 *   intent = detectIntent(message)                  an explicit "remember that …"
 *   if intent: remember.submit(memoryText)          long-term; the upgrade tool is withheld this turn
 *   stm = stm.context(scope)                        short-term: this channel, the user's others
 *   if no intent and the dataset has memory:
 *     long = query.ask(message)                     long-term: an answer with its sources
 *   reply = generate(persona, stm, long, message)   with the upgrade tool unless withheld,
 *                                                   at most GB_TURN_MAX_STEPS tool steps
 *   stm.capture(scope, [message, reply])
 *   builtin models only: every GB_STM_UPGRADE_EVERY turns an extractive summary upgrade
 *
 * With builtin models there is no language model: the reply says so plainly and gives what
 * memory holds (the long-term answer, or what was stored), never a pretence of chat.
 */

export interface TurnToolCall {
  name: string;
  arguments: unknown;
  result: UpgradeResult | { error: string };
}

export interface TurnResult {
  turnId: string;
  reply: string;
  toolCalls: TurnToolCall[];
  memoryIntent: boolean;
  rememberRunId?: string;
  queryRunId?: string;
  /** the long-term sources the reply was given */
  sources: Source[];
  /** the builtin provider's own upgrade of the summary this turn */
  upgraded?: UpgradeResult;
}

export const BUILTIN_REPLY = "(builtin models: no language model here, so this is what memory holds, not a chat reply)";

async function hasMemory(app: App, datasetId: string): Promise<boolean> {
  const [row] = await queryRows<{ found: boolean }>(app.database.db, sql`SELECT EXISTS (SELECT 1 FROM gb_chunks WHERE dataset_id = ${datasetId}) AS found`);
  return row?.found === true;
}

function systemPrompt(persona: string | undefined, stm: string, long: { answer: string; sources: Source[] } | null, stored: string | null, tool: boolean): string {
  const parts = [persona?.trim() || "You are a helpful assistant in a chat."];
  if (stm) parts.push(`Short-term memory (this conversation and the user's others):\n${stm}`);
  if (long && long.sources.length) {
    parts.push(`Long-term memory, asked with the user's message:\nAnswer: ${long.answer}\nSources:\n${long.sources.map((s) => `[${s.n}] ${s.text}`).join("\n")}`);
  }
  if (stored) parts.push(`The user asked you to remember something; it has been stored in long-term memory: "${stored}". Acknowledge it briefly.`);
  if (tool) parts.push(`When something worth keeping for the next turns changed, call ${TOOL_NAME} (at most once).`);
  return parts.join("\n\n");
}

/** chat.turn: see the pseudo-code above. */
export async function chatTurn({ app, caller, input }: { app: App; caller: Caller; input: TurnInput }): Promise<TurnResult> {
  const db = app.database.db;
  const ds = await resolveDataset(db, input.dataset, caller);
  const turnId = input.turnId ?? randomUUID();
  const { dataset, scope } = input;
  const intent = detectIntent(input.message);
  const out: TurnResult = { turnId, reply: "", toolCalls: [], memoryIntent: intent.memoryIntent, sources: [] };

  if (intent.memoryIntent && intent.memoryText) {
    const r = await submitRemember({ app, caller, input: { dataset, text: intent.memoryText, userId: scope.userId, source: { kind: "chat", speaker: scope.userId } } });
    out.rememberRunId = r.rememberRunId;
  }
  const stm = await context({ app, caller, input: { dataset, scope, mode: "mixed" } });
  let long: { answer: string; sources: Source[] } | null = null;
  if (!intent.memoryIntent && (await hasMemory(app, ds.id))) {
    // a question is at most 4,000 characters (query.ask's bound); a message may be longer
    const r = await ask({ app, caller, input: { dataset, question: input.message.slice(0, 4000), userId: scope.userId, limit: 5 } });
    out.queryRunId = r.queryRunId;
    out.sources = r.sources;
    long = { answer: r.answer, sources: r.sources };
  }

  const models = recordedModels(app.provider, { db, datasetId: ds.id, runKind: null, runId: null });
  if (app.provider.name === "builtin") {
    const held = intent.memoryIntent ? (intent.memoryText ? `Stored for long-term memory: ${intent.memoryText}` : "Nothing to store: say what to remember.") : long?.answer;
    out.reply = `${BUILTIN_REPLY} ${held ?? "Nothing in memory matches."}`;
  } else {
    const toolOffered = !intent.memoryIntent;
    const tools: ToolDef[] = toolOffered ? [{ ...stmTool(app.env.GB_STM_MAX_SUMMARY_CHARS).function }] : [];
    const messages: ChatMessage[] = [
      { role: "system", content: systemPrompt(input.persona, stm.text, long, intent.memoryText ?? null, toolOffered) },
      { role: "user", content: input.message },
    ];
    for (let step = 0; ; step++) {
      const reply = await models.chat({ messages, tools: step < app.env.GB_TURN_MAX_STEPS ? tools : [] });
      if (reply.toolCalls.length === 0 || step >= app.env.GB_TURN_MAX_STEPS) {
        out.reply = reply.content ?? "";
        break;
      }
      messages.push({ role: "assistant", content: reply.content ?? "", toolCalls: reply.toolCalls });
      for (const call of reply.toolCalls) {
        const result = await runTool(app, caller, input, turnId, call.name, call.arguments, toolOffered);
        out.toolCalls.push({ name: call.name, arguments: call.arguments, result });
        messages.push({ role: "tool", toolCallId: call.id, content: JSON.stringify(result) });
      }
    }
  }

  const captured = await capture({
    app,
    caller,
    input: {
      dataset,
      scope,
      messages: [
        { role: "user", content: input.message, authorId: scope.userId },
        ...(out.reply.trim() ? [{ role: "assistant" as const, content: out.reply.slice(0, 8000) }] : []),
      ],
    },
  });
  // builtin models keep the summary themselves, extractively, every GB_STM_UPGRADE_EVERY turns
  if (app.provider.name === "builtin" && !intent.memoryIntent && captured.cadence.turnsSinceUpgrade >= app.env.GB_STM_UPGRADE_EVERY) {
    const recent = await context({ app, caller, input: { dataset, scope, mode: "raw" } });
    const said = (recent.sameChannel?.messages ?? []).filter((m) => m.role === "user").map((m) => m.content);
    const { summary } = await models.summarize({ text: said.join("\n") });
    if (summary.trim()) {
      out.upgraded = await upgrade({ app, caller, input: { dataset, scope, turnId, summary: summary.slice(0, app.env.GB_STM_MAX_SUMMARY_CHARS) } });
    }
  }
  return out;
}

/** One tool call of the model: the upgrade tool (unless withheld), or an error it can read. */
async function runTool(app: App, caller: Caller, input: TurnInput, turnId: string, name: string, args: unknown, offered: boolean): Promise<TurnToolCall["result"]> {
  if (name !== TOOL_NAME || !offered) return { error: `no tool ${name} in this turn` };
  try {
    return await executeToolCall({
      app,
      caller,
      input: { dataset: input.dataset, scope: input.scope, turnId, arguments: (args ?? {}) as Record<string, unknown> },
    });
  } catch (e) {
    // a model's bad arguments are the model's to read and fix, not the caller's error
    if (errorKind(e) === "validation") return { error: errorText(e) };
    throw e;
  }
}
