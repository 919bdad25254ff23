/**
 * A literal's number and unit: "3.1 M EUR" → 3_100_000 "EUR", "$3.9 million" → 3_900_000 "USD",
 * "12%" → 12 "%", "3.5k users" → 3_500 "users", "-4 °C" → -4 "°C". Null when the literal is not a
 * quantity (a name, a date, a sentence that merely holds a number).
 */
export interface Quantity {
  value: number;
  unit: string | null;
}

/** Currency signs and words, as ISO 4217 codes. "pound" is left alone: it is a weight too. */
const CURRENCY_SIGNS: Readonly<Record<string, string>> = { $: "USD", "US$": "USD", "€": "EUR", "£": "GBP", "¥": "JPY", "₹": "INR", "₩": "KRW", "CHF": "CHF" };
const CURRENCY_WORDS: Readonly<Record<string, string>> = {
  euro: "EUR", euros: "EUR", dollar: "USD", dollars: "USD", "us dollars": "USD", yen: "JPY", "swiss francs": "CHF",
  "british pounds": "GBP", "pounds sterling": "GBP", rupees: "INR",
};

/** Scale words; "M" is a million only in capitals ("42 m" is metres), "k" in either case. */
const SCALES: readonly [RegExp, number][] = [
  [/^(?:k|thousands?)$/i, 1e3],
  [/^(?:M|mn|mio\.?|mln|millions?)$/, 1e6],
  [/^(?:millions?)$/i, 1e6],
  [/^(?:b|bn|bln|billions?)$/i, 1e9],
  [/^(?:t|tn|trillions?)$/i, 1e12],
];

const SIGN = String.raw`[-+−–]?`;
const CURRENCY = String.raw`US\$|CHF|[$€£¥₹₩]`;
const NUMBER = String.raw`\d[\d,' ]*(?:\.\d+)?|\d+(?:,\d+)?|\.\d+`;
const SHAPE = new RegExp(String.raw`^(${SIGN})\s*(${CURRENCY})?\s*(${SIGN})\s*(${NUMBER})(.*)$`, "u");
/** dates, times, ratios and versions: "2026-01-15", "3/4", "10:30", "1.2.3" */
const NOT_A_QUANTITY = /^\s*\d+(?:[-/:]\d|\.\d+\.\d)/;
/** more words than a unit has: "3 cats and a dog" is a sentence */
const MAX_UNIT_WORDS = 3;

export function parseQuantity(literal: string): Quantity | null {
  const s = literal.trim().replace(/\s+/g, " ");
  if (NOT_A_QUANTITY.test(s.replace(/^\D+/, ""))) return null;
  const m = SHAPE.exec(s);
  if (!m) return null;
  const negative = /[-−–]/.test(m[1]! + m[3]!);
  const number = readNumber(m[4]!.trim());
  if (number === null) return null;
  let rest = m[5]!.trim();
  let value = negative ? -number : number;
  const scale = /^([A-Za-z]+\.?)(?=$|[\s%])/.exec(rest);
  const factor = scale ? SCALES.find(([re]) => re.test(scale[1]!))?.[1] : undefined;
  if (scale && factor !== undefined) {
    value *= factor;
    rest = rest.slice(scale[0].length).trim();
  }
  const unit = readUnit(m[2] ?? null, rest);
  if (unit === undefined) return null;
  // a bare year ("2010") is a date, not an amount of anything
  if (unit === null && factor === undefined && /^\d{4}$/.test(m[4]!.trim()) && value >= 1000 && value <= 2100) return null;
  return { value: Math.round(value * 1e9) / 1e9, unit };
}

/** "1,200" → 1200 (a comma before three digits groups thousands), "3,1" → 3.1 (a decimal comma). */
function readNumber(raw: string): number | null {
  let t = raw.replace(/[ ']/g, "");
  if (/^\d{1,3}(?:,\d{3})+(?:\.\d+)?$/.test(t)) t = t.replace(/,/g, "");
  else if (/^\d+,\d+$/.test(t)) t = t.replace(",", ".");
  else if (t.includes(",")) return null;
  const n = Number(t);
  return Number.isFinite(n) ? n : null;
}

/** The unit after the number (and the currency before it); undefined when the rest is no unit. */
function readUnit(sign: string | null, rest: string): string | null | undefined {
  let r = rest.replace(/[.,;:!?)]+$/, "").trim();
  if (/^(?:%|percent|per cent|pct)$/i.test(r)) return "%";
  let code = sign ? CURRENCY_SIGNS[sign]! : null;
  const trailing = new RegExp(String.raw`^(.*?)\s*(${CURRENCY})$`, "u").exec(r);
  if (!code && trailing) {
    code = CURRENCY_SIGNS[trailing[2]!]!;
    r = trailing[1]!.trim();
  }
  if (!r) return code;
  const word = r.toLowerCase();
  if (Object.hasOwn(CURRENCY_WORDS, word)) return code ?? CURRENCY_WORDS[word]!;
  if (/^[A-Z]{3}$/.test(r) && !code) return r; // an ISO code: "EUR", "CHF"
  if (code) return r.split(" ").length <= MAX_UNIT_WORDS ? code : undefined;
  if (r.split(" ").length > MAX_UNIT_WORDS || !/^[\p{L}°µ%]/u.test(r)) return undefined;
  return r;
}
