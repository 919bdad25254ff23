import { formatWhen } from "./format";

type When = Date | string | null | undefined;

/**
 * A span of time as the fact tables show it: a fact's validity (validAt → invalidAt, when it held
 * in the world) or its record (createdAt → expiredAt, when memory held it). An open end is "since"
 * or "until"; no ends at all is `none`. In parts, so that a table cell can break between the ends
 * and never inside one.
 */
export function spanParts(from: When, to: When, none = "not stated"): string[] {
  if (from && to) return [`${formatWhen(from)} –`, formatWhen(to)];
  if (from) return [`since ${formatWhen(from)}`];
  if (to) return [`until ${formatWhen(to)}`];
  return [none];
}

export const formatSpan = (from: When, to: When, none?: string) => spanParts(from, to, none).join(" ");
