import { foreignKey, index, integer, jsonb, pgTable, primaryKey, text, uuid } from "drizzle-orm/pg-core";
import { ts } from "./columns";

/*
 * Short-term memory (#14, src/server/stm): what is durable of it. Each row is one key of a scope
 * (`shortterm:user:<userId>:<channelId>[:<personaId>]`, `shortterm:server:<serverId>:<channelId>[:<personaId>]`):
 * its identity, the distilled summary or categories the model keeps, and the cadence. The raw
 * messages are not here: they live in the message cache (in process, or Redis).
 */

/** A scope key's durable state. */
export const shortTermMemories = pgTable(
  "short_term_memories",
  {
    datasetId: uuid("dataset_id").notNull(),
    key: text("key").notNull(),
    kind: text("kind").$type<"user" | "server">().notNull(),
    /** the user of a user key; null for a server key (see writers) */
    userId: text("user_id"),
    serverId: text("server_id"),
    channelId: text("channel_id").notNull(),
    personaId: text("persona_id"),
    /** every user whose turns were written to the key: a server key is shared by its channel's users, and forgetting one of them deletes it */
    writers: text("writers").array().notNull().default([]),
    summary: text("summary"),
    categories: jsonb("categories").$type<Record<string, string>>(),
    /** the number of upgrades so far (0: none); the last is in short_term_memory_versions under this number */
    version: integer("version").notNull().default(0),
    /** cadence: turns captured since the last upgrade */
    turnsSinceUpgrade: integer("turns_since_upgrade").notNull().default(0),
    lastUpgradeAt: ts("last_upgrade_at"),
    /** the turn of the last upgrade: a second upgrade in it is refused */
    lastUpgradeTurn: text("last_upgrade_turn"),
    /** made with the row: messages cached under another epoch belong to a row since deleted (src/server/stm/cache.ts) */
    epoch: uuid("epoch").notNull(),
    createdAt: ts("created_at").notNull().defaultNow(),
    updatedAt: ts("updated_at").notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.datasetId, t.key] }),
    // stm.context's other channels of a user, stm.clearUser
    index("short_term_memories_user_idx").on(t.datasetId, t.userId),
    // stm.context's other channels of a server
    index("short_term_memories_server_idx").on(t.datasetId, t.serverId),
    // stm.clearChannel
    index("short_term_memories_channel_idx").on(t.datasetId, t.channelId),
    // stm.clearUser and subjects.purge: the server keys a user wrote to
    index("short_term_memories_writers_idx").using("gin", t.writers),
  ],
);

/** Every upgrade of a key, kept: what the summary and categories were after it, when, in which turn. */
export const shortTermMemoryVersions = pgTable(
  "short_term_memory_versions",
  {
    datasetId: uuid("dataset_id").notNull(),
    key: text("key").notNull(),
    version: integer("version").notNull(),
    summary: text("summary"),
    categories: jsonb("categories").$type<Record<string, string>>(),
    turnId: text("turn_id").notNull(),
    /** the scope's user whose turn it was */
    userId: text("user_id").notNull(),
    createdAt: ts("created_at").notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.datasetId, t.key, t.version] }),
    foreignKey({ columns: [t.datasetId, t.key], foreignColumns: [shortTermMemories.datasetId, shortTermMemories.key] }).onDelete("cascade"),
  ],
);
