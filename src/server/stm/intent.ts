/*
 * The intent gate of short-term memory: does a user's message ask the assistant, in so many
 * words, to remember something for the long term, and what is the thing to remember?
 *
 * A request is an imperative at the start of a sentence: "remember", "memorize", "don't forget",
 * "keep/bear in mind", "note", "make/take a note", "save/store" and "for future reference",
 * optionally after lead-ins (a list bullet, an @mention or a name and a comma, "hey", "ok so",
 * "btw", "please") and a modal ("can you", "could you", "I want you to", "make sure you"). Or
 * the same verb with "this/that/it" as a tag at the end of a sentence ("my flat is 4B, remember
 * that"). Anything else that mentions remembering is not one: a question about the past ("do
 * you remember …?"), a report ("I remember …", "I'll remember that"), a negation ("don't
 * remember this"), a mention inside a sentence or in quotes ("the song 'Remember Me'").
 *
 * No catastrophic backtracking, whatever the message: sentences are cut by one scan of the text,
 * the regular expressions are sticky (tried at one position, a bounded number of times each) or
 * read only a short tail of a sentence, and none nests quantifiers. Linear in the message.
 */

/** What the gate found in a message. */
export interface MemoryIntent {
  /** the message asks the assistant to remember something */
  memoryIntent: boolean;
  /**
   * What to remember: the request's sentence with the request words (and a trailing "please",
   * "thanks", "ok?" and the final punctuation) stripped, in the message's own characters. Absent
   * when there is no intent, or when a bare request ("remember this", "don't forget!") opens
   * the message: it points at something said in an earlier message, which the gate does not guess
   * at. A bare request after a sentence of the same message ("I'm vegan. Remember that.") stores
   * that sentence.
   */
  memoryText?: string;
}

/**
 * The gate. Case-insensitive, straight and curly apostrophes alike ("don’t", "don't", "dont").
 * Every sentence of the message is read (sentences end at ".", "!", "?", "…" before a blank, and
 * at each line break); the message is a request if any sentence is one, and memoryText is that of
 * the first request with something to store. A request whose sentence ends in a colon at the end
 * of a line ("Remember this:") stores the lines that follow, up to a blank line.
 *
 * Rules that tell a request from talk about memory:
 *  - the verb starts the sentence (after the lead-ins): "I remember …", "she told me to remember
 *    …", "you don't need to remember that" are not requests, nor is a sentence that starts with
 *    a quote mark;
 *  - "remember when/what/how …", "remember me" and "remember to …" are not: reminiscence, and a
 *    reminder to act rather than a fact to keep;
 *  - a sentence ending in "?" is a request only after "can/could/would/will you", and then only
 *    with "that", "this" or a colon after "remember" ("can you remember that I'm vegetarian?"),
 *    as "can you remember my sister's name?" asks what the assistant recalls;
 *  - "note", "save" and "store" need a marker after them ("note that", "note:", "save this",
 *    "store it in your memory"): "note taking is hard", "save the date" are not requests.
 */
export function detectIntent(message: string): MemoryIntent {
  const text = message.replace(APOSTROPHES, "'");
  let bare = false;
  let previous: Span | null = null;
  for (const s of sentenceSpans(text)) {
    const before = previous;
    previous = s;
    const sentence = text.slice(s.start, s.end);
    if (!KEYWORD.test(sentence)) continue;
    const found = requestIn(sentence);
    if (found === null) continue;
    let memoryText = message.slice(s.start + found.from, s.start + found.to).trim();
    if (memoryText === "" && found.colon) memoryText = linesAfter(message, s.end);
    // "I'm vegan. Remember that.": a bare request points at the sentence before it
    else if (memoryText === "" && before) memoryText = message.slice(before.start, before.start + bodyOf(text.slice(before.start, before.end)).end).trim();
    if (memoryText !== "") return { memoryIntent: true, memoryText };
    bare = true;
  }
  return { memoryIntent: bare };
}

/** A word every request has: a sentence without one is passed over at the cost of one scan. */
const KEYWORD = /remember|forget|note|mind|memori[sz]e|save|store|reference/i;

/** Apostrophes and their look-alikes, read as "'" (each one UTF-16 unit, so offsets hold). */
const APOSTROPHES = /[\u2018\u2019\u02bc\u0060\u00b4]/g;

interface Span {
  start: number;
  end: number;
}

const isSpace = (c: string | undefined): boolean => c !== undefined && /\s/.test(c);
const ENDERS = new Set([".", "!", "?", "…"]);
const CLOSERS = new Set(['"', "'", "”", ")", "]"]);

/** Titles whose period is no full stop ("Dr. Smith"); words that often end a sentence are not here. */
const TITLES: ReadonlySet<string> = new Set(["mr", "mrs", "ms", "mx", "dr", "prof", "st", "vs"]);

/**
 * The trimmed sentences of a text, in one scan: a cut after a run of ".!?…" (and closing quotes)
 * followed by a blank, and at every line break. No cut after a title or a dotted abbreviation
 * ("e.g.", "p.m."), which is read from at most a few characters before the period.
 */
function sentenceSpans(text: string): Span[] {
  const out: Span[] = [];
  const push = (a: number, b: number) => {
    while (a < b && isSpace(text[a])) a += 1;
    while (b > a && isSpace(text[b - 1])) b -= 1;
    if (b > a) out.push({ start: a, end: b });
  };
  let start = 0;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charAt(i);
    if (c === "\n") {
      push(start, i);
      start = i + 1;
      continue;
    }
    if (!ENDERS.has(c)) continue;
    let j = i + 1;
    while (j < text.length && ENDERS.has(text.charAt(j))) j += 1;
    const single = c === "." && j === i + 1;
    while (j < text.length && CLOSERS.has(text.charAt(j))) j += 1;
    const cut = (j === text.length || isSpace(text[j])) && !(single && isAbbreviation(text, i));
    if (cut) {
      push(start, j);
      start = j;
    }
    i = j - 1;
  }
  push(start, text.length);
  return out;
}

/** Is the period at `dot` that of a title or a dotted abbreviation? */
function isAbbreviation(text: string, dot: number): boolean {
  let k = dot;
  while (k > 0 && dot - k < 12 && /[\p{L}.]/u.test(text.charAt(k - 1))) k -= 1;
  const before = text[k - 1];
  if (k === dot || (before !== undefined && !/[\s("'“[]/.test(before))) return false;
  const word = text.slice(k, dot).toLowerCase();
  const parts = word.split(".");
  if (parts.length === 1) return TITLES.has(word);
  return parts.every((p) => p.length >= 1 && p.length <= 2);
}

/** The lines after a request that ends in a colon, up to a blank line, trimmed. */
function linesAfter(message: string, from: number): string {
  const blank = /\n[ \t\r\f\v]*\n/g;
  blank.lastIndex = from;
  const m = blank.exec(message);
  const body = message.slice(from, m ? m.index : message.length);
  return body.slice(0, bodyOf(body).end).trim();
}

/**
 * Where a sentence's words end: before its final punctuation and a trailing courtesy
 * (", please", " thanks", ", ok?"). `question`: it ends in "?" that is no tag question (", ok?").
 */
function bodyOf(sentence: string): { end: number; question: boolean } {
  let end = trimTerminators(sentence, sentence.length);
  const question = sentence.slice(end).includes("?");
  let tagged = false;
  for (let round = 0; round < 3; round += 1) {
    const from = Math.max(0, end - 24);
    const tail = sentence.slice(from, end);
    const m = COURTESY.exec(tail) ?? TAG_QUESTION.exec(tail);
    if (!m) break;
    tagged = true;
    end = trimTerminators(sentence, from + m.index);
  }
  return { end, question: question && !tagged };
}

function trimTerminators(s: string, end: number): number {
  while (end > 0 && (isSpace(s[end - 1]) || ENDERS.has(s.charAt(end - 1)) || s[end - 1] === "," || s[end - 1] === ";")) end -= 1;
  return end;
}

/** "please" may follow a blank; the rest only a comma ("… said thanks" keeps its "thanks"). */
const COURTESY = /(?:[,;—–]\s*|\s+)(?:please|pls|plz)$|[,;—–]\s*(?:thanks|thank\s+you|thx)$/i;
const TAG_QUESTION = /[,;—–]\s*(?:ok|okay|alright|right|yeah|yes)$/i;

/**
 * What may come before the verb, tried in turn at the start of a sentence (each sticky: it
 * matches where the last ended or not at all). `modal` ones make a question a request.
 */
const LEAD_INS: readonly { re: RegExp; modal?: true; polite?: true; strip?: true }[] = [
  // a list bullet, an @mention (with or without a comma)
  { re: /[-*•]\s+/y, strip: true },
  { re: /@[\w.-]+[\s,:]*/y, strip: true },
  // interjections and connectives
  {
    re: /(?:hey|hi|hello|yo|ok|okay|k|so|oh|ah|also|and|plus|alright|all\s+right|right|well|now|btw|by\s+the\s+way|fyi|one\s+(?:more|last)\s+thing|last\s+thing|actually|just|thanks|thank\s+you|from\s+now\s+on|going\s+forward|in\s+(?:the\s+)?future)\b[\s,;:!—–-]*/iy,
    strip: true,
  },
  { re: /(?:please|pls|plz|kindly)\b[\s,;:—–-]*/iy, strip: true, polite: true },
  { re: /(?:can|could|would|will|won't|wont)\s+(?:you|u|ya)\b\s*/iy, modal: true, polite: true },
  { re: /(?:i(?:\s+want|\s+need|\s+would\s+like|'d\s+like)\s+(?:you|u)\s+to|make\s+sure\s+(?:that\s+)?(?:you|to)|be\s+sure\s+to)\b\s*/iy, modal: true },
  // a name, then a comma or a colon: "Gligabao, remember …" (tried after the verbs: "Remember: …")
  { re: /[\p{L}\p{N}_-]+\s*[,:]\s*/uy },
];

/** At most this many lead-ins before the verb. */
const MAX_LEAD_INS = 8;

/**
 * The request verbs. `recall`: takes its object as it comes ("remember I'm vegetarian") and
 * refuses "to", a wh-word or a lone pronoun after it; `marked`: needs "that", "this", a colon or
 * "in your memory" after it (for `polite` ones, a "please" or "can you" before it will do);
 * `reference`: "for future reference", then anything. `clear`: a request even when asked ("can
 * you keep in mind …?"); only "remember" is not, as "can you remember X?" asks what is recalled.
 */
const VERBS: readonly { re: RegExp; kind: "recall" | "marked" | "reference"; clear: boolean; polite?: true }[] = [
  { re: /remember\b/iy, kind: "recall", clear: false },
  { re: /memori[sz]e\b/iy, kind: "recall", clear: true },
  { re: /(?:do\s+not|don'?t|never)(?:\s+ever)?\s+forget(?:\s+about)?\b/iy, kind: "recall", clear: true },
  { re: /(?:keep|bear)(?:\s+(?:this|that|it))?\s+in\s+mind\b/iy, kind: "recall", clear: true },
  { re: /(?:(?:make|take)\s+(?:a\s+)?note|take\s+note)\s+of\b|note\s+down\b/iy, kind: "recall", clear: true },
  { re: /(?:make|take)\s+(?:a\s+)?note\b|take\s+note\b|save\b|store\b/iy, kind: "marked", clear: true },
  // "please note I'm away" is a request, "note taking is hard" none
  { re: /note\b/iy, kind: "marked", clear: true, polite: true },
  { re: /for\s+(?:future|later)\s+reference\b/iy, kind: "reference", clear: true },
];

/** What may follow the verb before the thing to remember, in this order, each at most once. */
const AFTER_VERB: readonly RegExp[] = [
  // the object, when nothing but a place, a purpose or punctuation follows it ("remember this: …")
  /\s+(?:this|that|it|the\s+following)(?=\s+(?:down|in|to|into|for)\b|\s*[:,;—–]|\s+-|\s*$)/iy,
  /\s+down\b/iy,
  /\s+(?:in|to|into)\s+(?:your\s+|the\s+|my\s+)?(?:long[\s-]term\s+)?(?:memory|memories|notes|brain|head)\b/iy,
  /\s+for\s+(?:me|us|later|now|next\s+time|the\s+future|future\s+reference|good)\b/iy,
  /\s+(?:that|the\s+fact\s+that)\b/iy,
  // a colon, comma or dash before the thing itself
  /\s*[:,;—–]\s*|\s+-+\s+/y,
];

/** After a bare "remember" or "don't forget", these make it no request. */
const NOT_A_FACT = /(?:to|what|when|where|who|whom|whose|why|how|which|whether|if)\b|(?:me|us|him|her|them|you)$/iy;

/** "…, remember that", "… for future reference": the request as a tag at the end of a sentence. */
const TRAILING_REQUEST =
  /(?:[,;:—–]|\s-+)\s*(?:(?:and|so|just|please|pls)\s+)?(?<modal>(?:can|could|would|will)\s+(?:you|u)\s+(?:please\s+)?)?(?:(?:remember|memori[sz]e|note|save|store)\s+(?:this|that|it)(?:\s+down)?|(?:do\s+not|don'?t|never)\s+forget(?:\s+(?:this|that|it))?|(?:keep|bear)\s+(?:this|that|it)\s+in\s+mind|(?:make|take)\s+a\s+note\s+of\s+(?:this|that|it))$/i;
const TRAILING_REFERENCE = /[\s,;:—–-]+for\s+(?:future|later)\s+reference$/i;
/** How much of a sentence's end the tags are looked for in. */
const TAIL = 96;

/**
 * The request in one sentence (apostrophes normalised): the offsets of the thing to remember
 * ([from, to), empty for a bare request; `colon`: it ends in one), or null when it is none.
 */
function requestIn(sentence: string): { from: number; to: number; colon: boolean } | null {
  const { end, question } = bodyOf(sentence);
  const body = sentence.slice(0, end);
  return leadingRequest(body, question) ?? trailingRequest(body, question);
}

function sticky(re: RegExp, s: string, at: number): number {
  re.lastIndex = at;
  return re.test(s) ? re.lastIndex - at : -1;
}

function leadingRequest(body: string, question: boolean): { from: number; to: number; colon: boolean } | null {
  let at = 0;
  let modal = false;
  let polite = false;
  for (let step = 0; step <= MAX_LEAD_INS; step += 1) {
    for (const verb of VERBS) {
      const n = sticky(verb.re, body, at);
      if (n < 0) continue;
      return complement(body, at + n, verb, { modal, polite, question });
    }
    if (step === MAX_LEAD_INS) break;
    const lead = LEAD_INS.map((l) => ({ l, n: sticky(l.re, body, at) })).find((x) => x.n > 0);
    if (!lead) return null;
    at += lead.n;
    modal ||= lead.l.modal === true;
    polite ||= lead.l.polite === true || lead.l.modal === true;
  }
  return null;
}

function complement(
  body: string,
  at: number,
  verb: (typeof VERBS)[number],
  { modal, polite, question }: { modal: boolean; polite: boolean; question: boolean },
): { from: number; to: number; colon: boolean } | null {
  if (question && !modal) return null;
  let marked = false;
  for (const re of AFTER_VERB) {
    const n = sticky(re, body, at);
    if (n < 0) continue;
    at += n;
    marked = true;
  }
  while (at < body.length && isSpace(body[at])) at += 1;
  if (verb.kind === "marked" && !marked && !(verb.polite && polite)) return null;
  if (question && !verb.clear && !marked) return null;
  if (verb.kind !== "reference" && !marked && sticky(NOT_A_FACT, body, at) >= 0) return null;
  return { from: at, to: body.length, colon: body.endsWith(":") };
}

function trailingRequest(body: string, question: boolean): { from: number; to: number; colon: boolean } | null {
  const from = Math.max(0, body.length - TAIL);
  const tail = body.slice(from);
  const m = TRAILING_REQUEST.exec(tail) ?? TRAILING_REFERENCE.exec(tail);
  if (!m || (question && m.groups?.modal === undefined)) return null;
  let start = 0;
  for (let step = 0; step < MAX_LEAD_INS; step += 1) {
    const lead = LEAD_INS.filter((l) => l.strip).map((l) => sticky(l.re, body, start)).find((n) => n > 0);
    if (lead === undefined) break;
    start += lead;
  }
  const to = trimTerminators(body, from + m.index);
  if (to <= start) return null;
  return { from: start, to, colon: false };
}
