/** Formatting for the admin pages: dates, keys, JSON. */

const thisYear = new Intl.DateTimeFormat(undefined, { month: "short", day: "numeric", hour: "numeric", minute: "2-digit" });
const otherYear = new Intl.DateTimeFormat(undefined, { year: "numeric", month: "short", day: "numeric", hour: "numeric", minute: "2-digit" });

/** A date short enough for a table cell: the year only when it is not this one. */
export function formatWhen(date: Date | string | null | undefined, none = "never"): string {
  if (!date) return none;
  const d = typeof date === "string" ? new Date(date) : date;
  return (d.getFullYear() === new Date().getFullYear() ? thisYear : otherYear).format(d);
}

/** A key as the pages show it: its stored prefix (gb_ and 8 characters) and an ellipsis. */
export const keyHint = (prefix: string) => `${prefix}…`;

/** One line of JSON; "" for an empty object, so the audit table stays quiet. */
export function compactJson(value: unknown): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "object" && Object.keys(value).length === 0) return "";
  return JSON.stringify(value);
}

export const databaseLabel = (db: "pglite" | "postgres") => (db === "pglite" ? "PGlite" : "Postgres");
export const modelsLabel = (models: "builtin" | "openai") => (models === "builtin" ? "builtin models" : "OpenAI models");
