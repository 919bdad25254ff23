import {
  addDays, dayOf, humanDay, humanMonth, nearestWeekday, utcDate, weekdayIndex, weekdayName,
} from "./date-math";

/**
 * Resolvers for the relative date expressions chrono-node is not asked for ("last week", "last Friday"), each
 * against the reference time the text was said. `human` is what the fact sentence gets in
 * brackets; it follows how people write such dates ("the week before 8 May 2023").
 */
export type Resolved = { date: Date; human: string | null } | null;

export const absolute = (date: Date): Resolved => ({ date, human: null });

export function rel(date: Date, precision: "day" | "month" | "year"): Resolved {
  const human = precision === "day" ? humanDay(date) : precision === "month" ? humanMonth(date) : String(date.getUTCFullYear());
  return { date, human };
}

export function monthNear(ref: Date, month: number, word: string): Date {
  let year = ref.getUTCFullYear();
  if (word === "last" && month >= ref.getUTCMonth()) year -= 1;
  if (word === "next" && month <= ref.getUTCMonth()) year += 1;
  return utcDate(year, month, 1);
}

export function period(ref: Date | null, word: string, unit: string): Resolved {
  if (!ref) return null;
  const today = dayOf(ref);
  const dir = word === "next" ? 1 : word === "this" ? 0 : -1;
  const label = dir < 0 ? "before" : dir > 0 ? "after" : "of";
  if (unit === "week") return { date: addDays(today, 7 * dir), human: `the week ${label} ${humanDay(today)}` };
  if (unit === "weekend") {
    const saturday = dir === 0 ? nearestWeekday(addDays(today, -1), 6, 1) : nearestWeekday(today, 6, dir < 0 ? -1 : 1);
    return { date: saturday, human: `the weekend ${label} ${humanDay(today)}` };
  }
  if (unit === "month") return rel(utcDate(today.getUTCFullYear(), today.getUTCMonth() + dir, 1), "month");
  return rel(utcDate(today.getUTCFullYear() + dir, 0, 1), "year");
}

export function weekday(ref: Date | null, word: string, name: string): Resolved {
  if (!ref) return null;
  const today = dayOf(ref);
  const wd = weekdayIndex(name);
  // "on Friday" in a report of the past: the latest Friday up to today; "next Friday": the one after.
  const date = word === "next" ? nearestWeekday(today, wd, 1) : word === "on" || word === "this"
    ? (today.getUTCDay() === wd ? today : nearestWeekday(today, wd, -1))
    : nearestWeekday(today, wd, -1);
  return { date, human: `${weekdayName(date)} ${humanDay(date)}` };
}

