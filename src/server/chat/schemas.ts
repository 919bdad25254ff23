import { z } from "zod";
import { text } from "../input";
import { DatasetName } from "../datasets/schemas";
import { Scope, TurnId } from "../stm/schemas";

export const TurnInput = z
  .object({
    dataset: DatasetName,
    scope: Scope,
    /** the user's message */
    message: text()
      .max(8000)
      .refine((m) => m.trim().length > 0, "must not be empty"),
    /** the persona's instructions: the system prompt the bot speaks by */
    persona: text().max(4000).optional(),
    /** the turn's id (one upgrade per turn); default: a new one */
    turnId: TurnId.optional(),
  })
  .strict();
export type TurnInput = z.infer<typeof TurnInput>;
