import { z } from "zod";

/*
 * The LoCoMo format (Maharana et al., ACL 2024): conversations of sessions of turns, and questions
 * with the dia_ids of their evidence. The data is read from a path given at run time and never
 * copied into the project (it is CC BY-NC 4.0).
 */

const Turn = z.object({ speaker: z.string(), dia_id: z.string(), text: z.string() }).loose();
export type Turn = z.infer<typeof Turn>;

export const Sample = z.object({
  sample_id: z.string(),
  conversation: z.record(z.string(), z.unknown()),
  qa: z.array(
    z
      .object({
        question: z.string(),
        evidence: z.array(z.string()).default([]),
        category: z.number().int(),
      })
      .loose(),
  ),
});
export type Sample = z.infer<typeof Sample>;

export interface Session {
  index: number;
  date: Date | null;
  turns: Turn[];
}

const MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"];

/** "1:56 pm on 8 May, 2023" → a Date (UTC), or null when it does not read. */
export function parseSessionDate(text: string): Date | null {
  const m = /(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+([a-z]+),?\s+(\d{4})/i.exec(text);
  if (!m) return null;
  const month = MONTHS.indexOf(m[5]!.toLowerCase());
  if (month < 0) return null;
  let hour = Number(m[1]) % 12;
  if (m[3]!.toLowerCase() === "pm") hour += 12;
  return new Date(Date.UTC(Number(m[6]), month, Number(m[4]), hour, Number(m[2])));
}

/** The sessions of a conversation in order, with their dates. */
export function sessions(sample: Sample): Session[] {
  const c = sample.conversation;
  const out: Session[] = [];
  for (let i = 1; Array.isArray(c[`session_${i}`]); i++) {
    const turns = z.array(Turn).parse(c[`session_${i}`]);
    const date = typeof c[`session_${i}_date_time`] === "string" ? parseSessionDate(c[`session_${i}_date_time`] as string) : null;
    out.push({ index: i, date, turns });
  }
  return out;
}

export const CATEGORIES: Record<number, string> = { 1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial" };
