import { pgTable, text, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { ts } from "./columns";

/** A named memory space. Every other table carries its id first in its keys. */
export const datasets = pgTable(
  "datasets",
  {
    id: uuid("id").primaryKey(),
    name: text("name").notNull(),
    createdAt: ts("created_at").notNull().defaultNow(),
  },
  (t) => [
    // datasets.create conflict check and name → id resolution on every call
    uniqueIndex("datasets_name_key").on(t.name),
  ],
);
