import * as chrono from "chrono-node";
import { dayOf, isoDay, monthIndex, utcDate } from "./date-math";
import { absolute as abs, monthNear, period, rel, weekday, type Resolved } from "./date-relative";

/**
 * Date expressions in a sentence, resolved to ISO days. Absolute forms ("March 2021", "in 2024")
 * need nothing else; relative forms ("yesterday", "last week") need the time the text was said
 * (occurredAt) and stay unresolved without it. A relative span also carries a `human` form
 * ("7 May 2023") that the fact sentence gets in brackets, so the sentence stands on its own.
 *
 * chrono-node reads the calendar dates (with a written year, and "May 3" in the year of the
 * text), the day words ("yesterday", "tonight"), "… ago" and "last/next month/year". A few rules
 * of our own stay, for what chrono reads otherwise than the facts need: a bare year after a
 * preposition ("born in 1990", which chrono leaves alone), "in December" (this year's, where
 * chrono takes the last one), "on Friday" (the latest one up to the day it was said), and weeks
 * and weekends, whose bracketed form says what they were relative to ("the week before 8 May
 * 2023").
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
const MONTH_NAME = new RegExp(`\\b${MON}(?![a-z])`, "i");
/** What every date kept from chrono has: a digit, a month's name or a relative word. */
const MAY_HOLD_DATE = new RegExp(`\\d|\\b(?:yesterday|today|tonight|tomorrow|ago|last|this|next|past)\\b|${MONTH_NAME.source}`, "i");
const DOW = "(Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)";

type Found = { start: number; end: number; r: Resolved };
type Rule = { re: RegExp; resolve: (m: RegExpExecArray, ref: Date | null) => Resolved };

/** Our rules (see above), ordered by priority. */
const RULES: Rule[] = [
  {
    re: new RegExp(`\\b(in|last|this|next|early|late|since|until) ${MON}\\b(?!,? \\d{4}| \\d{1,2}\\b)`, "gi"),
    resolve: (m, ref) => (ref ? rel(monthNear(ref, monthIndex(m[2]!), m[1]!.toLowerCase()), "month") : null),
  },
  {
    re: /\b(?:in|since|from|until|till|by|during|before|after|around|through|of|to|year|early|late|mid) (1[89]\d\d|20\d\d)\b/gi,
    resolve: (m) => abs(utcDate(+m[1]!, 0, 1)),
  },
  { re: /^(1[89]\d\d|20\d\d)\b/g, resolve: (m) => abs(utcDate(+m[1]!, 0, 1)) },
  { re: /\b(last|this|next|past) (week|weekend)\b/gi, resolve: (m, ref) => period(ref, m[1]!.toLowerCase(), m[2]!.toLowerCase()) },
  { re: new RegExp(`\\b(last|this|next|on) ${DOW}\\b`, "gi"), resolve: (m, ref) => weekday(ref, m[1]!.toLowerCase(), m[2]!) },
];

/** The relative forms taken from chrono; anything else relative it finds is left alone. */
const CHRONO_RELATIVE = /^(?:yesterday|today|tonight|tomorrow|last night|this (?:morning|afternoon|evening)|.+ ago|(?:last|this|next|past) (?:month|year))$/i;
const DAY_WORDS = /^(?:yesterday|today|tonight|tomorrow|last night|this (?:morning|afternoon|evening))$/i;
/** A range's two ends ("June 2020 to March 2021"): chrono gives one result, the facts want two dates. */
const RANGE = /^(.*?)(\s*(?:-|–|—|\bto\b|\buntil\b|\btill\b|\bthrough\b)\s*)(.+)$/i;

/** A chrono component as a day (the 1st when the day is not said, 1 January when only the year is). */
function resolveComponent(c: chrono.ParsedComponents, text: string, written: boolean): Resolved {
  const y = c.get("year");
  const m = c.get("month");
  if (y === null) return null;
  const certainDay = c.isCertain("day") || DAY_WORDS.test(text);
  const precision = certainDay ? "day" : c.isCertain("month") ? "month" : "year";
  const d = dayOf(c.date());
  const date = precision === "day" ? utcDate(y, (m ?? 1) - 1, c.get("day") ?? d.getUTCDate()) : precision === "month" ? utcDate(y, (m ?? 1) - 1, 1) : utcDate(y, 0, 1);
  return written ? abs(date) : rel(date, precision);
}

/** chrono's dates in `text`: calendar dates, and with a reference the relative forms above. */
function chronoDates(text: string, ref: Date | null): Found[] {
  const out: Found[] = [];
  // chrono costs a millisecond or two a sentence; without one of these it finds nothing kept below
  if (!MAY_HOLD_DATE.test(text)) return out;
  // without a reference only dates with a written year are kept, whatever chrono assumes
  const results = chrono.en.casual.parse(text, { instant: ref ?? new Date(0), timezone: 0 }, { forwardDate: false });
  for (const r of results) {
    const parts: { start: number; text: string; c: chrono.ParsedComponents }[] = [];
    const range = r.end ? RANGE.exec(r.text) : null;
    if (r.end && range) {
      parts.push({ start: r.index, text: range[1]!, c: r.start });
      parts.push({ start: r.index + range[1]!.length + range[2]!.length, text: range[3]!, c: r.end });
    } else parts.push({ start: r.index, text: r.text, c: r.start });
    for (const p of parts) {
      const written = /\b\d{4}\b/.test(p.text) && p.c.isCertain("year");
      // "May 3": a month name and a day, the year the one of the text
      const calendar = p.c.isCertain("month") && p.c.isCertain("day") && MONTH_NAME.test(p.text) && !/\b(?:last|next|this|ago)\b/i.test(p.text);
      if (written ? !p.c.isCertain("month") : !ref || !(CHRONO_RELATIVE.test(p.text) || calendar)) continue;
      const resolved = resolveComponent(p.c, p.text, written);
      if (resolved) out.push({ start: p.start, end: p.start + p.text.length, r: resolved });
    }
  }
  return out;
}

/** All date expressions in `text`, left to right, without overlaps. */
export function findDates(text: string, occurredAt: Date | null): DateSpan[] {
  const taken: DateSpan[] = [];
  const take = ({ start, end, r }: Found) => {
    if (!r || Number.isNaN(r.date.getTime()) || taken.some((s) => start < s.end && end > s.start)) return;
    taken.push({ start, end, iso: isoDay(r.date), human: r.human, role: "valid" });
  };
  const fromChrono = chronoDates(text, occurredAt);
  // calendar dates with a written year first: a longer absolute form wins over a rule inside it
  for (const f of fromChrono) if (f.r && f.r.human === null) take(f);
  for (const rule of RULES) {
    rule.re.lastIndex = 0;
    for (let m = rule.re.exec(text); m; m = rule.re.exec(text)) take({ start: m.index, end: m.index + m[0].length, r: rule.resolve(m, occurredAt) });
  }
  for (const f of fromChrono) if (f.r && f.r.human !== null) take(f);
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
