import { sql } from "drizzle-orm";
import { boolean, index, jsonb, pgTable, primaryKey, text, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import type { Role } from "../../../lib/roles";
import { ts } from "./columns";

/*
 * Accounts, teams, API keys and the audit log (#5). The four gb_auth_* tables are better-auth's
 * (user, session, account, verification; its drizzle adapter reads them by these keys); the
 * rest is ours. Ids of better-auth rows are its own strings.
 */

export const authUsers = pgTable("gb_auth_users", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  email: text("email").notNull().unique(),
  emailVerified: boolean("email_verified").notNull().default(false),
  image: text("image"),
  createdAt: ts("created_at").notNull(),
  updatedAt: ts("updated_at").notNull(),
});

export const authSessions = pgTable(
  "gb_auth_sessions",
  {
    id: text("id").primaryKey(),
    expiresAt: ts("expires_at").notNull(),
    token: text("token").notNull().unique(),
    createdAt: ts("created_at").notNull(),
    updatedAt: ts("updated_at").notNull(),
    ipAddress: text("ip_address"),
    userAgent: text("user_agent"),
    userId: text("user_id")
      .notNull()
      .references(() => authUsers.id, { onDelete: "cascade" }),
  },
  (t) => [index("gb_auth_sessions_user_idx").on(t.userId)],
);

export const authAccounts = pgTable(
  "gb_auth_accounts",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id").notNull(),
    providerId: text("provider_id").notNull(),
    userId: text("user_id")
      .notNull()
      .references(() => authUsers.id, { onDelete: "cascade" }),
    accessToken: text("access_token"),
    refreshToken: text("refresh_token"),
    idToken: text("id_token"),
    accessTokenExpiresAt: ts("access_token_expires_at"),
    refreshTokenExpiresAt: ts("refresh_token_expires_at"),
    scope: text("scope"),
    /** better-auth's scrypt hash */
    password: text("password"),
    createdAt: ts("created_at").notNull(),
    updatedAt: ts("updated_at").notNull(),
  },
  (t) => [index("gb_auth_accounts_user_idx").on(t.userId)],
);

export const authVerifications = pgTable("gb_auth_verifications", {
  id: text("id").primaryKey(),
  identifier: text("identifier").notNull(),
  value: text("value").notNull(),
  expiresAt: ts("expires_at").notNull(),
  createdAt: ts("created_at").notNull(),
  updatedAt: ts("updated_at").notNull(),
});

/** The team every install starts with; datasets that predate teams belong to it. */
export const DEFAULT_TEAM_ID = "default";

export const teams = pgTable("gb_teams", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  createdAt: ts("created_at").notNull().defaultNow(),
});

export const teamMembers = pgTable(
  "gb_team_members",
  {
    teamId: text("team_id")
      .notNull()
      .references(() => teams.id, { onDelete: "cascade" }),
    userId: text("user_id")
      .notNull()
      .references(() => authUsers.id, { onDelete: "cascade" }),
    role: text("role").$type<Role>().notNull(),
    createdAt: ts("created_at").notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.teamId, t.userId] }), index("gb_team_members_user_idx").on(t.userId)],
);

/** An app's credential: only the SHA-256 of the secret is kept, and its first characters. */
export const apiKeys = pgTable(
  "gb_api_keys",
  {
    id: uuid("id").primaryKey(),
    teamId: text("team_id")
      .notNull()
      .references(() => teams.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    /** the visible start of the key, e.g. "gb_a1b2c3d4" */
    prefix: text("prefix").notNull(),
    hash: text("hash").notNull(),
    role: text("role").$type<Role>().notNull(),
    /** null: every dataset of the team */
    datasetIds: uuid("dataset_ids").array(),
    createdBy: text("created_by"),
    createdAt: ts("created_at").notNull(),
    lastUsedAt: ts("last_used_at"),
    revokedAt: ts("revoked_at"),
  },
  (t) => [uniqueIndex("gb_api_keys_hash_key").on(t.hash), index("gb_api_keys_team_idx").on(t.teamId, t.createdAt)],
);

/** Who did what, when: sign-ins, keys, roles, datasets, purges. */
export const auditLog = pgTable(
  "gb_audit_log",
  {
    id: uuid("id").primaryKey(),
    /** null for events outside any team (a failed sign-in) */
    teamId: text("team_id"),
    at: ts("at").notNull(),
    actorKind: text("actor_kind").$type<"user" | "key" | "system">().notNull(),
    actorId: text("actor_id"),
    /** an email or a key's name and prefix, as it was at the time */
    actorLabel: text("actor_label").notNull(),
    action: text("action").notNull(),
    target: text("target"),
    details: jsonb("details").$type<Record<string, unknown>>().notNull().default({}),
    /**
     * the datasets the event concerns (a dataset made or deleted, a purge, a key restricted to
     * them); null = the team as a whole (members, sign-ins, unrestricted keys). A key restricted
     * to some datasets sees only the events whose datasets are all among its own.
     */
    datasetIds: uuid("dataset_ids").array(),
  },
  (t) => [index("gb_audit_log_team_at_idx").on(t.teamId, t.at.desc(), t.id.desc())],
);

/** Settings the app makes for itself on first start (the session-signing secret). */
export const settings = pgTable("gb_settings", {
  key: text("key").primaryKey(),
  value: text("value").notNull(),
  createdAt: ts("created_at").notNull().default(sql`now()`),
});
