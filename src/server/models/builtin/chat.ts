import type { ChatMessage, ChatReply } from "../types";
import { contentWords, stem } from "../../text/words";

export const CANNOT_CHAT = "Builtin models cannot chat: they can only quote what is already in the conversation.";

/**
 * The builtin provider has no language model, so it does not pretend to reason or to call
 * tools: it quotes the earlier line that shares most words with the last user message, or says
 * plainly that it cannot chat.
 */
export function builtinChat(messages: ChatMessage[]): ChatReply {
  let lastUser = -1;
  for (let i = messages.length - 1; i >= 0; i -= 1) {
    if (messages[i]!.role === "user") {
      lastUser = i;
      break;
    }
  }
  if (lastUser < 0) return { content: CANNOT_CHAT, toolCalls: [] };
  const wanted = new Set(contentWords(messages[lastUser]!.content).map(stem));
  let best: { line: string; overlap: number } | null = null;
  for (const m of messages.slice(0, lastUser)) {
    for (const raw of m.content.split(/\n+/)) {
      const line = raw.trim();
      let overlap = 0;
      for (const w of new Set(contentWords(line).map(stem))) if (wanted.has(w)) overlap += 1;
      // strictly greater: the earliest line wins a tie
      if (line && overlap > 0 && (!best || overlap > best.overlap)) best = { line, overlap };
    }
  }
  return { content: best ? best.line : CANNOT_CHAT, toolCalls: [] };
}
