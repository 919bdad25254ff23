import type { CachedMessage } from "./cache";
import type { ContextMode } from "./schemas";

/*
 * stm.context's text, ready to put in a prompt (pure: tested alone). The seed's summary
 * priority: in the scope's own channel the distilled content (categories, summary) is given
 * rather than the raw messages, which appear only while there is none; other channels of the
 * same user (and server) appear as the mode says: distilled only, raw only, or both (mixed).
 */

export interface StmEntry {
  key: string;
  channelId: string;
  serverId: string | null;
  summary: string | null;
  categories: Record<string, string> | null;
  messages: CachedMessage[];
  updatedAt: Date;
}

/** the raw messages of another channel shown, its last ones */
export const OTHER_CHANNEL_MESSAGES = 5;
/** a raw message of another channel is cut to this many characters */
const OTHER_MESSAGE_CHARS = 300;

const hasDistilled = (e: StmEntry) => !!e.summary?.trim() || Object.keys(e.categories ?? {}).length > 0;

function distilled(e: StmEntry): string[] {
  const lines: string[] = [];
  if (e.summary?.trim()) lines.push(`Summary: ${e.summary.trim()}`);
  const cats = Object.entries(e.categories ?? {});
  if (cats.length) lines.push("Notes:", ...cats.map(([k, v]) => `- ${k}: ${v}`));
  return lines;
}

function raw(messages: CachedMessage[], cut?: number): string[] {
  return messages.map((m) => {
    const who = m.role === "assistant" ? "assistant" : m.authorId ? `user ${m.authorId}` : "user";
    const content = cut && m.content.length > cut ? `${m.content.slice(0, cut)}…` : m.content;
    return `[${m.at.slice(0, 16).replace("T", " ")}] ${who}: ${content}`;
  });
}

const where = (e: StmEntry) => (e.serverId ? `channel ${e.channelId} (server ${e.serverId})` : `direct messages ${e.channelId}`);

/** The context text of the scope's channel and the other channels, empty when there is nothing. */
export function renderContext(same: StmEntry | null, others: StmEntry[], mode: ContextMode): string {
  const parts: string[] = [];
  if (same && (hasDistilled(same) || same.messages.length)) {
    const body = hasDistilled(same) ? distilled(same) : ["Recent messages:", ...raw(same.messages)];
    parts.push(["Short-term memory of this conversation:", ...body].join("\n"));
  }
  const shown = others.flatMap((e) => {
    const body: string[] = [];
    if (mode !== "raw") body.push(...distilled(e));
    if (mode !== "distilled" && e.messages.length) body.push("Recent messages:", ...raw(e.messages.slice(-OTHER_CHANNEL_MESSAGES), OTHER_MESSAGE_CHARS));
    return body.length ? [`From ${where(e)}:\n${body.join("\n")}`] : [];
  });
  if (shown.length) parts.push(["Short-term memory of other conversations:", ...shown].join("\n\n"));
  return parts.join("\n\n");
}
