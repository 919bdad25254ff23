import type { Mention } from "./mentions";
import { has, isDateTok, type Tok } from "./tokens";
import { isVerbTok } from "./verbs";

export const INTENSIFIERS = new Set(["so", "very", "really", "super", "pretty", "quite", "too", "extremely", "totally", "just"]);
const DATE_LEADS = new Set(["last", "next", "this", "past", "every"]);

/** Cursor over a clause's tokens after the verb. */
export class Reader {
  constructor(readonly toks: Tok[], public k: number, readonly b: number, readonly mentions: Mention[]) {}
  get tok(): Tok | undefined {
    return this.k < this.b ? this.toks[this.k] : undefined;
  }
  /** skip adverbs and date words ("yesterday", "last week") */
  skip(): void {
    for (;;) {
      const t = this.tok;
      if (!t) return;
      const dateLead = DATE_LEADS.has(t.word) && this.toks[this.k + 1] !== undefined && isDateTok(this.toks[this.k + 1]!);
      if (isDateTok(t) || dateLead || t.text === "" || (has(t, "Adverb") && !isVerbTok(this.toks, this.k) && !INTENSIFIERS.has(t.word))) this.k += 1;
      else return;
    }
  }
  mentionAt(): Mention | undefined {
    return this.mentions.find((m) => m.start === this.k || (m.start < this.k && m.end > this.k));
  }
  /** adjectives from here ("so very happy" → "happy"); null when there are none */
  adjectives(): string | null {
    const out: string[] = [];
    while (this.tok && (has(this.tok, "Adjective") || INTENSIFIERS.has(this.tok.word) || (out.length > 0 && this.tok.word === "and"))) {
      if (has(this.tok, "Adjective")) out.push(this.tok.word);
      this.k += 1;
    }
    return out.length > 0 ? out.join(" and ") : null;
  }
}
