import { detectIntent } from "../../stm/intent";
import { getEntry, listScopes } from "../../stm/read";
import { CaptureInput, ClearChannelInput, ClearUserInput, ContextInput, DetectIntentInput, EntryInput, ExecuteToolCallInput, ScopesInput, UpgradeInput } from "../../stm/schemas";
import { capture, clearChannel, clearUser, context, executeToolCall, upgrade } from "../../stm/stm";
import { stmTool } from "../../stm/tool";
import { readProcedure, router, writeProcedure } from "../trpc";

/** Short-term memory (#14): reads are queries, everything that writes a mutation. */
export const stmRouter = router({
  /** the update_short_term_memory tool's definition, for a chat model's tools */
  tool: readProcedure.query(({ ctx }) => stmTool(ctx.app.env.GB_STM_MAX_SUMMARY_CHARS)),
  context: readProcedure.input(ContextInput).query(({ ctx, input }) => context({ app: ctx.app, caller: ctx.caller, input })),
  /** the admin STM page: scope keys by user, server or channel; one key with its messages and versions */
  scopes: readProcedure.input(ScopesInput).query(({ ctx, input }) => listScopes({ app: ctx.app, caller: ctx.caller, input })),
  entry: readProcedure.input(EntryInput).query(({ ctx, input }) => getEntry({ app: ctx.app, caller: ctx.caller, input })),
  detectIntent: readProcedure.input(DetectIntentInput).query(({ input }) => detectIntent(input.message)),
  capture: writeProcedure.input(CaptureInput).mutation(({ ctx, input }) => capture({ app: ctx.app, caller: ctx.caller, input })),
  upgrade: writeProcedure.input(UpgradeInput).mutation(({ ctx, input }) => upgrade({ app: ctx.app, caller: ctx.caller, input })),
  executeToolCall: writeProcedure.input(ExecuteToolCallInput).mutation(({ ctx, input }) => executeToolCall({ app: ctx.app, caller: ctx.caller, input })),
  clearChannel: writeProcedure.input(ClearChannelInput).mutation(({ ctx, input }) => clearChannel({ app: ctx.app, caller: ctx.caller, input })),
  clearUser: writeProcedure.input(ClearUserInput).mutation(({ ctx, input }) => clearUser({ app: ctx.app, caller: ctx.caller, input })),
});
