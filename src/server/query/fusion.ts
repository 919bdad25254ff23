import * as chrono from "chrono-node";
import { LRUCache } from "lru-cache";
import { countTokens } from "../remember/chunk";
import type { Candidate } from "./lists/candidate";
import type { ListName } from "./lists/registry";

/** A candidate as fused: its rank in each list that found it, and its fused score. */
export interface Ranked extends Candidate {
  /** 1-based rank in each list that found it */
  ranks: Partial<Record<ListName, number>>;
  score: number;
}

/** A candidate given to the model, with the tokens of its text. */
export interface Given extends Ranked {
  tokens: number;
}

/**
 * Best first; equal scores by key, in code-unit order (a fixed order, not a language's: keys are
 * `kind:uuid`, and localeCompare cost about 1.5 µs a comparison, most of a fusion's 0.2 ms).
 */
const byScore = (a: Ranked, b: Ranked) => b.score - a.score || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);

/** reciprocal rank fusion's constant (Cormack et al. 2009) */
const RRF_K = 60;

/**
 * Reciprocal rank fusion of the lists, best first; equal scores by key. A candidate found by
 * several lists is one, with each list's rank, scored the sum of 1 / (RRF_K + rank).
 */
export function fuse(lists: Partial<Record<ListName, Candidate[]>>): Ranked[] {
  const all = new Map<string, Ranked>();
  for (const [name, list] of Object.entries(lists) as [ListName, Candidate[]][]) {
    list.forEach((c, i) => {
      // Object.assign, not a spread: V8 copied these objects by spread ten times slower (1.6 µs each)
      const seen: Ranked = all.get(c.key) ?? Object.assign({}, c, { ranks: {}, score: 0 });
      // the first finder's copy is kept; the nearby list's distance joins it
      if (c.distanceKm !== undefined && seen.distanceKm === undefined) Object.assign(seen, { distanceKm: c.distanceKm, nearEntity: c.nearEntity });
      seen.ranks[name] = i + 1;
      seen.score += 1 / (RRF_K + i + 1);
      all.set(c.key, seen);
    });
  }
  return [...all.values()].sort(byScore);
}

/** texts longer than this are counted each time (the cache is for the facts and summaries that recur) */
const CACHED_TEXT_CHARS = 4_096;

/**
 * Token counts of the texts candidates carry, by text: the same facts and summaries come back
 * question after question, and BPE-counting them was 4.2% of the process's CPU samples under
 * load, 1.9% with the cache (lookups included; #16). A count depends on the text alone, so an
 * entry is never stale; the cache holds at most about two million characters of text.
 */
const tokenCounts = new LRUCache<string, number>({ maxSize: 2_000_000, sizeCalculation: (_count, text) => text.length + 32 });

/** countTokens, cached for short texts (tokenCounts). */
export function candidateTokens(text: string): number {
  if (text.length > CACHED_TEXT_CHARS) return countTokens(text);
  let n = tokenCounts.get(text);
  if (n === undefined) tokenCounts.set(text, (n = countTokens(text)));
  return n;
}

/**
 * The best candidates within `limit` sources and `tokenBudget` tokens of text, one per chunk:
 * a chunk's facts and its summary say the same thing, and a place in the context is worth
 * more given to another chunk. The first is given even if over the budget (an answer needs a
 * source); a later one over it is skipped, and a shorter one after it may still fit.
 */
export function cut(ranked: Ranked[], limit: number, tokenBudget: number): Given[] {
  const out: Given[] = [];
  const chunks = new Set<string>();
  let tokens = 0;
  for (const c of ranked) {
    if (out.length >= limit) break;
    if (chunks.has(c.source.chunkId)) continue;
    chunks.add(c.source.chunkId);
    const t = candidateTokens(c.text);
    if (tokens + t > tokenBudget && out.length > 0) continue;
    tokens += t;
    out.push({ ...c, tokens: t });
  }
  return out;
}

/**
 * What a candidate said by a speaker the question names gains: as much as a first place in one
 * more list. Chosen on the five LoCoMo dev conversations (half and twice as much did no better);
 * MRR rose on each of them, recall@10 on four (see #13's note).
 */
export const SPEAKER_BOOST = 1 / (RRF_K + 1);

const words = (s: string) => new Set(s.toLowerCase().match(/\p{L}[\p{L}\p{M}'’-]*/gu) ?? []);

/**
 * The candidates said by a speaker the question names go up: in a chat every turn has a
 * speaker, and "what did Ana say about…" is about Ana's turns, whoever they name. Only when
 * the question names some of the candidates' speakers, not all of them (naming both sides of a
 * conversation says nothing of whose turn it is).
 */
export function boostNamedSpeakers(ranked: Ranked[], question: string, boost = SPEAKER_BOOST): Ranked[] {
  if (boost <= 0) return ranked;
  const asked = words(question);
  const speakers = new Set(ranked.map((c) => c.source.speaker).filter((s): s is string => !!s));
  const named = new Set([...speakers].filter((s) => [...words(s)].some((w) => w.length >= 3 && asked.has(w))));
  if (named.size === 0 || named.size === speakers.size) return ranked;
  return ranked
    .map((c) => (c.source.speaker && named.has(c.source.speaker) ? { ...c, score: c.score + boost } : c))
    .sort(byScore);
}

/** What a candidate of the period a question names gains: as much as the speaker boost. */
export const TIME_BOOST = 1 / (RRF_K + 1);

export interface Period {
  start: Date;
  /** exclusive */
  end: Date;
}

/**
 * The period a question names ("on 3 May 2024", "in August 2023", "in 2022", "yesterday"), as
 * precise as it is written: a day, a month or a year (UTC), relative forms against `now`; a range
 * ("between 11 and 15 August 2023", "from May to July 2022") from the start of its first to the end
 * of its last. The first one named; null when it names none.
 */
export function namedPeriod(question: string, now: Date): Period | null {
  // chrono reads only short windows around what may be a time: on a whole question of 4,000
  // characters (the most allowed) of month names it spends 135 ms of the request thread
  const windows = [...question.matchAll(MAY_BE_TIME)].slice(0, 3).map((m) => question.slice(Math.max(0, m.index - 40), m.index + 100));
  const [found] = windows
    .map((w) => ({ w, rs: chrono.en.casual.parse(w, { instant: now, timezone: 0 }, { forwardDate: false }).slice(0, 2) }))
    .filter((x) => x.rs.length > 0);
  if (!found) {
    // a year alone ("in 2022", "between 2019 and 2021") is no date to chrono
    const years = RANGE_OF_YEARS.exec(question) ?? /\b(1[89]\d\d|20\d\d)\b/.exec(question);
    if (!years) return null;
    const [first, last] = [+years[1]!, +(years[2] ?? years[1]!)];
    return last >= first ? { start: new Date(Date.UTC(first, 0, 1)), end: new Date(Date.UTC(last + 1, 0, 1)) } : null;
  }
  const [r, next] = found.rs as [chrono.ParsedResult, chrono.ParsedResult | undefined];
  // "two weeks ago", "last week" name a day only roughly: three days either side
  const rough = /\bago\b|\bweeks?\b/i.test(r.text) ? 3 : 0;
  // a range chrono reads as one ("from May to July 2022"), or two dates joined ("between 11 August and 15 August")
  const joined = next && RANGE_JOIN.test(found.w.slice(r.index + r.text.length, next.index)) ? next.start : null;
  const last = r.end ?? joined;
  // a range's year is written once, at its end ("between 11 August and 15 August 2023")
  const year = last && !r.start.isCertain("year") && last.isCertain("year") ? last.get("year") : null;
  const start = periodOf(r.start, rough, year);
  const end = last ? periodOf(last, rough) : null;
  const period = start && end && end.end > start.start ? { start: start.start, end: end.end } : start;
  // "99999999 days ago" is a date no database holds (and chrono's arithmetic goes past them)
  return period && period.start >= EARLIEST && period.end <= LATEST ? period : null;
}

/** the span of the periods a question may name: years 1 to 9999 */
const EARLIEST = new Date("0001-01-01T00:00:00Z");
const LATEST = new Date("9999-12-31T23:59:59Z");

/** what joins the two ends of a range: "11 August and 15 August", "May to July", "May – July" */
const RANGE_JOIN = /^\s*(?:and|to|until|till|through|-|–)\s*$/i;
const RANGE_OF_YEARS = /\b(?:between|from)\s+(1[89]\d\d|20\d\d)\s*(?:and|to|until|till|through|-|–)\s*(1[89]\d\d|20\d\d)\b/i;

/** The day, month or year a date chrono read names, as precise as it is written. */
function periodOf(c: chrono.ParsedComponents, rough: number, year: number | null = null): Period | null {
  const y = year ?? c.get("year");
  const m = c.get("month");
  const d = c.get("day");
  if (y === null) return null;
  // a day written ("on 3 May 2024") or implied by a relative form ("yesterday")
  if (c.isCertain("day")) {
    if (m === null || d === null) return null;
    return { start: new Date(Date.UTC(y, m - 1, d - rough)), end: new Date(Date.UTC(y, m - 1, d + 1 + rough)) };
  }
  if (c.isCertain("month") && m !== null) return { start: new Date(Date.UTC(y, m - 1, 1)), end: new Date(Date.UTC(y, m, 1)) };
  if (c.isCertain("year")) return { start: new Date(Date.UTC(y, 0, 1)), end: new Date(Date.UTC(y + 1, 0, 1)) };
  return null;
}

const MAY_BE_TIME = /\d|\b(?:yesterday|today|tonight|tomorrow|ago|last|this|next|past|jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec|january|february|march|april|june|july|august|september|october|november|december|monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b/gi;

const within = (t: Date | null, p: Period) => t !== null && t >= p.start && t < p.end;

/**
 * The candidates of the period the question names go up: what was said then (the text's
 * occurredAt) or a fact that held from then (its validAt). Only when some candidates are of the
 * period and some are not (a period that holds all of them, or none, says nothing of which).
 */
export function boostNamedTime(ranked: Ranked[], question: string, now: Date, boost = TIME_BOOST): Ranked[] {
  return boostPeriod(ranked, namedPeriod(question, now), boost);
}

/** boostNamedTime with the period read already (null: the question names none). */
export function boostPeriod(ranked: Ranked[], period: Period | null, boost = TIME_BOOST): Ranked[] {
  if (boost <= 0 || !period) return ranked;
  const inside = (c: Ranked) => within(c.at, period) || within(c.validAt, period);
  const n = ranked.filter(inside).length;
  if (n === 0 || n === ranked.length) return ranked;
  return ranked
    .map((c) => (inside(c) ? { ...c, score: c.score + boost } : c))
    .sort(byScore);
}
