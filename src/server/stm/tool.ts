import { MAX_CATEGORIES, MAX_CATEGORY_CHARS, MAX_CATEGORY_NAME } from "./schemas";

/*
 * The update_short_term_memory tool, as an OpenAI function tool: a chat model calls it to keep
 * a distilled summary of the conversation, or notes by category, for the next turns. Its limits
 * are the ones stm.upgrade enforces, stated to the model so that it keeps within them.
 */

export const TOOL_NAME = "update_short_term_memory";

export interface FunctionTool {
  type: "function";
  function: { name: string; description: string; parameters: Record<string, unknown>; strict?: boolean };
}

export function stmTool(maxSummaryChars: number): FunctionTool {
  return {
    type: "function",
    function: {
      name: TOOL_NAME,
      description:
        "Keep short-term memory of this conversation for the next turns: a distilled summary of what matters so far " +
        "(it replaces the previous summary), and/or notes by category (each replaces the note of that name; an empty " +
        "value removes it). Call it at most once per turn, when something worth keeping changed. Not for things the " +
        "user explicitly asks you to remember long-term.",
      parameters: {
        type: "object",
        properties: {
          summary: { type: "string", maxLength: maxSummaryChars, description: `The conversation so far, distilled: at most ${maxSummaryChars} characters.` },
          categories: {
            type: "object",
            description: `Notes by category name (e.g. "plans", "preferences"): at most ${MAX_CATEGORIES} names of at most ${MAX_CATEGORY_NAME} characters, each note at most ${MAX_CATEGORY_CHARS} characters.`,
            maxProperties: MAX_CATEGORIES,
            propertyNames: { minLength: 1, maxLength: MAX_CATEGORY_NAME },
            additionalProperties: { type: "string", maxLength: MAX_CATEGORY_CHARS },
          },
        },
        additionalProperties: false,
      },
    },
  };
}
