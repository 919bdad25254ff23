import { pgTable, text, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { teams } from "./access";
import { ts } from "./columns";

/** A named memory space. Every other table carries its id first in its keys. */
export const datasets = pgTable(
  "datasets",
  {
    id: uuid("id").primaryKey(),
    /** the team that owns it; every read and write checks it (#5) */
    teamId: text("team_id")
      .notNull()
      .references(() => teams.id),
    name: text("name").notNull(),
    createdAt: ts("created_at").notNull().defaultNow(),
  },
  (t) => [
    // datasets.create conflict check and name → id resolution on every call, within a team
    uniqueIndex("datasets_team_name_key").on(t.teamId, t.name),
  ],
);
