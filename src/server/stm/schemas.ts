import { z } from "zod";
import { Instant, text } from "../input";
import { DatasetName } from "../datasets/schemas";
import { outputSchema, Timestamp } from "../output";
import type { CachedMessage } from "./cache";
import type { StmEntry } from "./render";
import type { Cadence, CaptureResult, ClearResult, ContextResult, UpgradeResult } from "./stm";

/*
 * Short-term memory's inputs (#14). A scope is where a chat turn happens: a user in a channel,
 * on a server (absent for a direct message), talking to a persona (optional).
 */

/** the most messages one capture takes, and the longest message */
export const MAX_CAPTURED = 50;
export const MAX_MESSAGE_CHARS = 8000;
/** the most categories a key holds, and the longest category name and value */
export const MAX_CATEGORIES = 32;
export const MAX_CATEGORY_NAME = 64;
export const MAX_CATEGORY_CHARS = 500;

/**
 * An id of a scope (a user, channel, server, persona): 1 to 128 characters, no ":" (it separates
 * the parts of a key, `shortterm:user:<userId>:<channelId>`) and no white space.
 */
export const ScopeId = text()
  .min(1)
  .max(128)
  .regex(/^[^:\s]+$/, 'must not contain ":" or white space');

export const Scope = z
  .object({
    userId: ScopeId,
    channelId: ScopeId,
    /** absent for a direct message: then the scope has only its user key */
    serverId: ScopeId.optional(),
    personaId: ScopeId.optional(),
  })
  .strict();
export type Scope = z.infer<typeof Scope>;

export const StmMessage = z
  .object({
    role: z.enum(["user", "assistant"]),
    content: text().min(1).max(MAX_MESSAGE_CHARS),
    /** who wrote it, as the app names them (a channel has many users) */
    authorId: text().min(1).max(200).optional(),
    /** when it was said; default: when it was captured */
    at: Instant.optional(),
  })
  .strict();
export type StmMessage = z.infer<typeof StmMessage>;

export const CaptureInput = z
  .object({
    dataset: DatasetName,
    scope: Scope,
    messages: z.array(StmMessage).min(1).max(MAX_CAPTURED),
  })
  .strict();
export type CaptureInput = z.infer<typeof CaptureInput>;

/** One chat turn's id, as the app names it: one upgrade per turn. */
export const TurnId = text().min(1).max(200);

/**
 * What update_short_term_memory takes: a summary, categories, or both. A category given "" is
 * removed. The summary's length is bounded by GB_STM_MAX_SUMMARY_CHARS, checked by the verb.
 */
export const UpgradeArguments = z
  .object({
    summary: text().max(100_000).optional(),
    categories: z
      .record(
        text()
          .min(1)
          .max(MAX_CATEGORY_NAME)
          .regex(/\S/, "must not be blank"),
        text().max(MAX_CATEGORY_CHARS),
      )
      .refine((c) => Object.keys(c).length <= MAX_CATEGORIES, `must have at most ${MAX_CATEGORIES} categories`)
      .optional(),
  })
  .strict()
  .refine((a) => a.summary !== undefined || a.categories !== undefined, { message: "give a summary, categories or both", path: ["summary"] });
export type UpgradeArguments = z.infer<typeof UpgradeArguments>;

export const UpgradeInput = z
  .object({
    dataset: DatasetName,
    scope: Scope,
    turnId: TurnId,
    summary: text().max(100_000).optional(),
    categories: z.record(z.string(), z.string()).optional(),
  })
  .strict();
export type UpgradeInput = z.infer<typeof UpgradeInput>;

export const ExecuteToolCallInput = z
  .object({
    dataset: DatasetName,
    scope: Scope,
    turnId: TurnId,
    /** the tool call's arguments: the JSON string a model gives, or the object */
    arguments: z.union([text().max(200_000), z.record(z.string(), z.unknown())]),
  })
  .strict();
export type ExecuteToolCallInput = z.infer<typeof ExecuteToolCallInput>;

export const ContextMode = z.enum(["distilled", "raw", "mixed"]);
export type ContextMode = z.infer<typeof ContextMode>;

export const ContextInput = z
  .object({
    dataset: DatasetName,
    scope: Scope,
    /** how other channels appear: distilled content only, raw messages only, or both (default) */
    mode: ContextMode.default("mixed"),
  })
  .strict();
export type ContextInput = z.infer<typeof ContextInput>;

export const ClearChannelInput = z
  .object({
    dataset: DatasetName,
    channelId: ScopeId,
    /** the channel's server: its keys there only; absent: every key of the channel id, on any server or none */
    serverId: ScopeId.optional(),
  })
  .strict();
export type ClearChannelInput = z.infer<typeof ClearChannelInput>;

export const ClearUserInput = z
  .object({
    /** one dataset; absent: every dataset the caller sees */
    dataset: DatasetName.optional(),
    userId: ScopeId,
  })
  .strict();
export type ClearUserInput = z.infer<typeof ClearUserInput>;

export const DetectIntentInput = z.object({ message: text().max(20_000) }).strict();
export type DetectIntentInput = z.infer<typeof DetectIntentInput>;

export const ScopesInput = z
  .object({
    dataset: DatasetName,
    /** keys of this user (their user keys and the server keys they wrote to) */
    userId: ScopeId.optional(),
    serverId: ScopeId.optional(),
    channelId: ScopeId.optional(),
    cursor: text().max(2000).optional(),
    limit: z.number().int().min(1).max(200).default(50),
  })
  .strict();
export type ScopesInput = z.infer<typeof ScopesInput>;

export const EntryInput = z
  .object({
    dataset: DatasetName,
    key: text().min(1).max(600),
  })
  .strict();
export type EntryInput = z.infer<typeof EntryInput>;

/* What short-term memory's verbs answer (stm.ts). */

const CadenceOutput = outputSchema<Cadence>()(
  z.object({ turnsSinceUpgrade: z.number(), lastUpgradeAt: Timestamp.nullable(), lastUpgradeTurnId: z.string().nullable(), version: z.number() }),
);

const CachedMessageOutput = outputSchema<CachedMessage>()(
  z.object({ role: z.enum(["user", "assistant"]), content: z.string(), authorId: z.string().optional(), at: z.string(), userId: z.string() }),
);

const StmEntryOutput = outputSchema<StmEntry>()(
  z.object({
    key: z.string(),
    channelId: z.string(),
    serverId: z.string().nullable(),
    summary: z.string().nullable(),
    categories: z.record(z.string(), z.string()).nullable(),
    messages: z.array(CachedMessageOutput),
    updatedAt: Timestamp,
  }),
);

export const ContextOutput = outputSchema<ContextResult>()(
  z.object({ text: z.string(), sameChannel: StmEntryOutput.nullable(), otherChannels: z.array(StmEntryOutput), cadence: CadenceOutput, mode: ContextMode }),
);

export const CaptureOutput = outputSchema<CaptureResult>()(z.object({ keys: z.array(z.string()), cached: z.number(), cadence: CadenceOutput }));

/** stm.upgrade and stm.executeToolCall: applied, or not (the turn was upgraded already) */
export const UpgradeOutput = outputSchema<UpgradeResult>()(
  z.discriminatedUnion("applied", [
    z.object({
      applied: z.literal(true),
      version: z.number(),
      summary: z.string().nullable(),
      categories: z.record(z.string(), z.string()).nullable(),
      keys: z.array(z.string()),
    }),
    z.object({ applied: z.literal(false), reason: z.literal("already_upgraded_this_turn") }),
  ]),
);

export const ClearOutput = outputSchema<ClearResult>()(
  z.object({
    datasets: z.array(z.string()),
    keys: z.array(z.string()),
    deleted: z.object({ short_term_memories: z.number(), short_term_memory_versions: z.number() }),
  }),
);
