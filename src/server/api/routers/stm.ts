import { detectIntent } from "../../stm/intent";
import { getEntry, listScopes } from "../../stm/read";
import {
  CaptureInput,
  CaptureOutput,
  ClearChannelInput,
  ClearOutput,
  ClearUserInput,
  ContextInput,
  ContextOutput,
  DetectIntentInput,
  EntryInput,
  ExecuteToolCallInput,
  ScopesInput,
  UpgradeInput,
  UpgradeOutput,
} from "../../stm/schemas";
import { capture, clearChannel, clearUser, context, executeToolCall, upgrade } from "../../stm/stm";
import { stmTool } from "../../stm/tool";
import { readProcedure, router, writeProcedure } from "../trpc";

/** Short-term memory (#14): reads are queries, everything that writes a mutation. */
export const stmRouter = router({
  /** the update_short_term_memory tool's definition, for a chat model's tools */
  tool: readProcedure.query(({ ctx }) => stmTool(ctx.app.env.GB_STM_MAX_SUMMARY_CHARS)),
  // POST over REST: its input holds the scope object, and a GET's query string carries flat values only
  context: readProcedure
    .meta({ openapi: { method: "POST", path: "/stm/context", tags: ["stm"], summary: "A scope's short-term memory, as text for a prompt" } })
    .input(ContextInput)
    .output(ContextOutput)
    .query(({ ctx, input }) => context({ app: ctx.app, caller: ctx.caller, input })),
  /** the admin STM page: scope keys by user, server or channel; one key with its messages and versions */
  scopes: readProcedure.input(ScopesInput).query(({ ctx, input }) => listScopes({ app: ctx.app, caller: ctx.caller, input })),
  entry: readProcedure.input(EntryInput).query(({ ctx, input }) => getEntry({ app: ctx.app, caller: ctx.caller, input })),
  detectIntent: readProcedure.input(DetectIntentInput).query(({ input }) => detectIntent(input.message)),
  capture: writeProcedure
    .meta({ openapi: { method: "POST", path: "/stm/capture", tags: ["stm"], summary: "Capture a turn's messages into every key of its scope" } })
    .input(CaptureInput)
    .output(CaptureOutput)
    .mutation(({ ctx, input }) => capture({ app: ctx.app, caller: ctx.caller, input })),
  upgrade: writeProcedure
    .meta({ openapi: { method: "POST", path: "/stm/upgrade", tags: ["stm"], summary: "Store a distilled summary and/or categories, once per turn" } })
    .input(UpgradeInput)
    .output(UpgradeOutput)
    .mutation(({ ctx, input }) => upgrade({ app: ctx.app, caller: ctx.caller, input })),
  executeToolCall: writeProcedure
    .meta({ openapi: { method: "POST", path: "/stm/execute-tool-call", tags: ["stm"], summary: "Apply update_short_term_memory's arguments as a model gave them" } })
    .input(ExecuteToolCallInput)
    .output(UpgradeOutput)
    .mutation(({ ctx, input }) => executeToolCall({ app: ctx.app, caller: ctx.caller, input })),
  clearChannel: writeProcedure
    .meta({ openapi: { method: "POST", path: "/stm/clear-channel", tags: ["stm"], summary: "Reset a channel: every key of it, rows and cached messages" } })
    .input(ClearChannelInput)
    .output(ClearOutput)
    .mutation(({ ctx, input }) => clearChannel({ app: ctx.app, caller: ctx.caller, input })),
  clearUser: writeProcedure
    .meta({ openapi: { method: "POST", path: "/stm/clear-user", tags: ["stm"], summary: "Forget a person in short-term memory" } })
    .input(ClearUserInput)
    .output(ClearOutput)
    .mutation(({ ctx, input }) => clearUser({ app: ctx.app, caller: ctx.caller, input })),
});
