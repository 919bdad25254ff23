/** UTC calendar arithmetic and formats for resolved dates. Dates are plain UTC midnights. */

export const MONTHS = [
  "January", "February", "March", "April", "May", "June",
  "July", "August", "September", "October", "November", "December",
] as const;
export const WEEKDAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"] as const;

/** "Mar", "march", "Sept" → 0-based month index, or -1. */
export function monthIndex(name: string): number {
  const n = name.toLowerCase().replace(/\.$/, "");
  return MONTHS.findIndex((m) => m.toLowerCase().startsWith(n.slice(0, 3)) && n.length >= 3);
}

export function weekdayIndex(name: string): number {
  return WEEKDAYS.findIndex((d) => d.toLowerCase() === name.toLowerCase());
}

export function utcDate(y: number, m: number, d: number): Date {
  return new Date(Date.UTC(y, m, d));
}

/** The calendar day of an instant (occurredAt may carry a time of day). */
export function dayOf(at: Date): Date {
  return utcDate(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate());
}

export function addDays(d: Date, n: number): Date {
  return utcDate(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + n);
}

/** The nearest `weekday` strictly before (dir -1) or after (dir 1) `d`. */
export function nearestWeekday(d: Date, weekday: number, dir: 1 | -1): Date {
  let diff = (weekday - d.getUTCDay()) * dir;
  if (diff <= 0) diff += 7;
  return addDays(d, diff * dir);
}

/** "2024-03-07" */
export function isoDay(d: Date): string {
  return d.toISOString().slice(0, 10);
}

/** "7 March 2024": the form people (and date questions) use. */
export function humanDay(d: Date): string {
  return `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}`;
}

export function humanMonth(d: Date): string {
  return `${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}`;
}

export function weekdayName(d: Date): string {
  return WEEKDAYS[d.getUTCDay()] ?? "";
}

/** occurredAt as a Date, or null when absent or unparseable (relative dates then stay unresolved). */
export function parseReference(occurredAt: string | null | undefined): Date | null {
  if (!occurredAt) return null;
  const t = Date.parse(occurredAt);
  return Number.isNaN(t) ? null : new Date(t);
}
