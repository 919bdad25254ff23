import { isoDay, monthIndex, utcDate } from "./date-math";
import { absolute as abs, ago, dayWord, monthNear, period, rel, weekday, type Resolved } from "./date-relative";

/**
 * Date expressions in a sentence, resolved to ISO days. Absolute forms ("March 2021", "in 2024")
 * need nothing else; relative forms ("yesterday", "last week") need the time the text was said
 * (occurredAt) and stay unresolved without it. A relative span also carries a `human` form
 * ("7 May 2023") that the fact sentence gets in brackets, so the sentence stands on its own.
 */
export interface DateSpan {
  start: number;
  end: number;
  iso: string;
  /** set for relative expressions: the resolved date as a reader would write it */
  human: string | null;
  /** "invalid" when the date says when something stopped ("until 2021", "from 2019 to 2021") */
  role: "valid" | "invalid";
}

const MON = "(Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)\\.?";
const DAY = "(\\d{1,2})(?:st|nd|rd|th)?";
const NUM: Record<string, number> = {
  a: 1, an: 1, one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9,
  ten: 10, few: 3, "a few": 3, "a couple of": 2, couple: 2, several: 3,
};
const DOW = "(Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)";

type Rule = { re: RegExp; resolve: (m: RegExpExecArray, ref: Date | null) => Resolved };

const num = (s: string): number => (Object.hasOwn(NUM, s.toLowerCase()) ? NUM[s.toLowerCase()]! : Number(s));

/** A calendar date exactly as written, or null for one like 2021-13-45 (Date would roll it over). */
function exact(y: number, m: number, d: number): Resolved {
  const date = utcDate(y, m, d);
  return date.getUTCMonth() === m && date.getUTCDate() === d ? abs(date) : null;
}

/** Ordered by priority: a longer absolute form wins over a shorter one it overlaps. */
const RULES: Rule[] = [
  { re: /\b(\d{4})-(\d{2})-(\d{2})\b/g, resolve: (m) => exact(+m[1]!, +m[2]! - 1, +m[3]!) },
  { re: new RegExp(`\\b${MON} ${DAY},? (\\d{4})\\b`, "g"), resolve: (m) => exact(+m[3]!, monthIndex(m[1]!), +m[2]!) },
  { re: new RegExp(`\\b${DAY} (?:of )?${MON},? (\\d{4})\\b`, "g"), resolve: (m) => exact(+m[3]!, monthIndex(m[2]!), +m[1]!) },
  { re: new RegExp(`\\b${MON},? (\\d{4})\\b`, "g"), resolve: (m) => abs(utcDate(+m[2]!, monthIndex(m[1]!), 1)) },
  {
    re: new RegExp(`\\b${MON} ${DAY}\\b`, "g"),
    resolve: (m, ref) => {
      const day = ref ? exact(ref.getUTCFullYear(), monthIndex(m[1]!), +m[2]!) : null;
      return day ? rel(day.date, "day") : null;
    },
  },
  {
    re: new RegExp(`\\b(in|last|this|next|early|late|since|until) ${MON}\\b`, "gi"),
    resolve: (m, ref) => (ref ? rel(monthNear(ref, monthIndex(m[2]!), m[1]!.toLowerCase()), "month") : null),
  },
  {
    re: /\b(?:in|since|from|until|till|by|during|before|after|around|through|of|to|year|early|late|mid) (1[89]\d\d|20\d\d)\b/gi,
    resolve: (m) => abs(utcDate(+m[1]!, 0, 1)),
  },
  { re: /^(1[89]\d\d|20\d\d)\b/g, resolve: (m) => abs(utcDate(+m[1]!, 0, 1)) },
  { re: /\b(yesterday|today|tonight|tomorrow|last night|this (?:morning|afternoon|evening))\b/gi, resolve: (m, ref) => dayWord(m[1]!.toLowerCase(), ref) },
  {
    re: /\b(a|an|one|two|three|four|five|six|seven|eight|nine|ten|a few|a couple of|few|several|\d+) (day|week|month|year)s? ago\b/gi,
    resolve: (m, ref) => (ref ? ago(ref, num(m[1]!), m[2]!.toLowerCase()) : null),
  },
  { re: /\b(last|this|next|past) (week|weekend|month|year)\b/gi, resolve: (m, ref) => period(ref, m[1]!.toLowerCase(), m[2]!.toLowerCase()) },
  { re: new RegExp(`\\b(last|this|next|on) ${DOW}\\b`, "gi"), resolve: (m, ref) => weekday(ref, m[1]!.toLowerCase(), m[2]!) },
];

/** All date expressions in `text`, left to right, without overlaps. */
export function findDates(text: string, occurredAt: Date | null): DateSpan[] {
  const taken: DateSpan[] = [];
  for (const rule of RULES) {
    rule.re.lastIndex = 0;
    for (let m = rule.re.exec(text); m; m = rule.re.exec(text)) {
      const start = m.index;
      const end = start + m[0].length;
      if (taken.some((s) => start < s.end && end > s.start)) continue;
      const r = rule.resolve(m, occurredAt);
      if (!r || Number.isNaN(r.date.getTime())) continue;
      taken.push({ start, end, iso: isoDay(r.date), human: r.human, role: "valid" });
    }
  }
  taken.sort((a, b) => a.start - b.start);
  for (const [i, span] of taken.entries()) {
    const before = text.slice(Math.max(0, span.start - 12), span.start).toLowerCase();
    const lead = text.slice(span.start, span.end).toLowerCase();
    const afterFrom = i > 0 && /\bfrom\b/.test(text.slice(0, span.start).toLowerCase());
    if (/^(until|till|through)\b/.test(lead) || /\b(until|till|through)\s*$/.test(before)) span.role = "invalid";
    else if (afterFrom && (/^to\b/.test(lead) || /\bto\s*$/.test(before))) span.role = "invalid";
  }
  return taken;
}
