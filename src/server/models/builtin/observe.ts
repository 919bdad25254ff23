import type { ObserveSeriesInput, SeriesObservations } from "../types";

/**
 * observe_series without a model: rules over the window's facts (oldest member first, the text
 * being remembered last). Every observation is about what the latest member brings, so that a
 * series does not repeat the same observation with each new text:
 * - a number: the same subject's same measure, in the same unit, in two members or more, the
 *   latest included: it rose, fell or stayed from the member before; a trend when three values
 *   or more all moved the same way;
 * - started: a fact of the latest member about a subject and predicate that every earlier member
 *   (two or more) stated, with a value none of them had;
 * - stopped: a fact every one of the (two or more) members before the last STOP_AFTER stated and
 *   none of those last ones does, though they still speak of its subject. Reported once, when
 *   the absence reaches STOP_AFTER.
 * The last two ask for a regular series (a report, a feed): chat turns rarely repeat a fact, so
 * a conversation gives none of them. Sentences are written so that the extractor reads them back
 * as facts: "Acme's revenue rose from 3.1 M EUR to 3.9 M EUR between 2026-01-15 and 2026-07-15."
 */
type Member = ObserveSeriesInput["members"][number];
type Fact = Member["facts"][number];
type Observation = SeriesObservations["observations"][number];

const STOP_AFTER = 2;
/** predicates that say nothing of their own: the extractor's fallback link */
const GENERIC = new Set(["mentions", "also_known_as"]);

const fold = (s: string): string => s.trim().toLowerCase().replace(/\s+/g, " ");
const day = (m: Member, f: Fact): string => (f.validAt ?? m.occurredAt ?? m.createdAt).slice(0, 10);

/**
 * The measure a numeric fact gives a value of, from the extractor's predicate shapes:
 * has_revenue / revenue_rose_to / revenue_stayed_at → "revenue"; was / rose_to → "" (the subject
 * itself is measured: "the temperature was -4 °C"); a predicate ending in "from" gives an old
 * value, no point. Other predicates are their own measure ("has" + "42 employees").
 */
export function measureOf(predicate: string): string | null {
  const p = fold(predicate).replace(/\s/g, "_");
  if (/_from$/.test(p)) return null;
  const has = /^has_(.+)$/.exec(p);
  if (has) return has[1]!;
  if (/^(?:is|was|are|were|[a-z]+_(?:to|at))$/.test(p)) return "";
  const changed = /^(.+)_[a-z]+_(?:to|at)$/.exec(p);
  return changed ? changed[1]! : p;
}

interface Point {
  member: Member;
  fact: Fact;
  value: number;
}

/** Each measure's values, one per member (its last statement there), in window order. */
function series(members: readonly Member[]): Map<string, Point[]> {
  const out = new Map<string, Point[]>();
  for (const member of members) {
    const seen = new Map<string, Point>();
    for (const fact of member.facts) {
      const measure = fact.value === null ? null : measureOf(fact.predicate);
      if (measure === null || fact.value === null) continue;
      seen.set(`${fold(fact.subject)}\u0000${measure}\u0000${fact.unit ?? ""}`, { member, fact, value: fact.value });
    }
    for (const [key, p] of seen) out.set(key, [...(out.get(key) ?? []), p]);
  }
  return out;
}

/**
 * "Acme's revenue", "The lake" (the subject is the measure); for a verb's count ("has" "12
 * boats") the counted unit: "Ferry Co's boats". Always "'s": the extractor reads it as the owner.
 */
function label(subject: string, measure: string, predicate: string, unit: string | null): string {
  const s = subject.charAt(0).toUpperCase() + subject.slice(1);
  if (!measure) return s;
  const noun = measure === fold(predicate).replace(/\s/g, "_") && unit && /^\p{L}+$/u.test(unit) ? unit : measure.replace(/_/g, " ");
  return `${s}'s ${noun}`;
}

const span = (a: string, b: string): string => (a === b ? ` on ${b}` : ` between ${a} and ${b}`);

function numeric(members: readonly Member[]): Observation[] {
  const latest = members.at(-1)!;
  const out: Observation[] = [];
  for (const [key, points] of series(members)) {
    const last = points.at(-1)!;
    if (points.length < 2 || last.member !== latest) continue;
    const measure = key.split("\u0000")[1]!;
    const name = label(last.fact.subject, measure, last.fact.predicate, last.fact.unit);
    const moves = points.slice(1).map((p, i) => Math.sign(p.value - points[i]!.value));
    const trend = moves.length >= 2 && moves.every((m) => m !== 0 && m === moves[0]);
    const from = trend ? points[0]! : points.at(-2)!;
    const when = span(day(from.member, from.fact), day(last.member, last.fact));
    const used = trend ? points : [from, last];
    const textIds = [...new Set(used.map((p) => p.member.textId))];
    const verb = last.value > from.value ? "rose" : last.value < from.value ? "fell" : null;
    const content = verb
      ? // the trend in a sentence of its own: the first must stay "measure, verb, from, to" for the extractor
        `${name} ${verb} from ${from.fact.object} to ${last.fact.object}${when}.${trend ? ` It ${verb} ${moves.length} times in a row.` : ""}`
      : `${name} stayed at ${last.fact.object}${when}.`;
    out.push({ content, textIds });
  }
  return out;
}

const factKey = (f: Fact): string => `${fold(f.subject)}\u0000${fold(f.predicate)}\u0000${fold(f.object)}`;
const slotKey = (f: Fact): string => `${fold(f.subject)}\u0000${fold(f.predicate)}`;
const keys = (m: Member, key: (f: Fact) => string): Set<string> =>
  new Set(m.facts.filter((f) => f.value === null && !GENERIC.has(fold(f.predicate))).map(key));

function startedOrStopped(members: readonly Member[]): Observation[] {
  const out: Observation[] = [];
  const latest = members.at(-1)!;
  const earlier = members.slice(0, -1);
  if (earlier.length >= 2) {
    const slotsEverywhere = earlier.map((m) => keys(m, slotKey)).reduce((a, b) => new Set([...a].filter((k) => b.has(k))));
    const before = new Set(earlier.flatMap((m) => [...keys(m, factKey)]));
    for (const f of latest.facts) {
      if (f.value !== null || GENERIC.has(fold(f.predicate)) || !slotsEverywhere.has(slotKey(f)) || before.has(factKey(f))) continue;
      out.push({ content: `${f.sentence} This is new in the series since ${day(latest, f)}.`, textIds: [latest.textId] });
    }
  }
  const recent = members.slice(-STOP_AFTER);
  const older = members.slice(0, -STOP_AFTER);
  if (older.length >= 2 && recent.length === STOP_AFTER) {
    const stated = older.map((m) => keys(m, factKey));
    const always = stated.reduce((a, b) => new Set([...a].filter((k) => b.has(k))));
    const lately = new Set(recent.flatMap((m) => [...keys(m, factKey)]));
    const subjects = new Set(recent.flatMap((m) => m.facts.map((f) => fold(f.subject))));
    const lastOld = older.at(-1)!;
    for (const f of lastOld.facts) {
      const k = factKey(f);
      if (!always.has(k) || lately.has(k) || !subjects.has(fold(f.subject))) continue;
      out.push({
        content: `Until ${day(lastOld, f)}: ${f.sentence} It is not said in the ${STOP_AFTER} entries since.`,
        textIds: [...older.map((m) => m.textId), ...recent.map((m) => m.textId)],
      });
    }
  }
  return out;
}

export function observeSeries(input: ObserveSeriesInput): SeriesObservations {
  if (input.members.length < 2) return { observations: [] };
  const seen = new Set<string>();
  const observations = [...numeric(input.members), ...startedOrStopped(input.members)].filter((o) => {
    if (seen.has(o.content)) return false;
    seen.add(o.content);
    return true;
  });
  return { observations };
}
