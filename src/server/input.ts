import { z } from "zod";

/*
 * What every input string and time must be before it reaches a verb, so that bad input is a
 * BAD_REQUEST naming its field rather than a database error: Postgres' text and jsonb cannot hold
 * NUL (U+0000), and a lone surrogate (half of a UTF-16 pair) is not Unicode at all (jsonb refuses
 * its escape; as text it would silently become U+FFFD).
 */

const NUL_OR_LONE_SURROGATE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Whether Postgres can store `s` as it is. */
export const isStorableText = (s: string): boolean => !NUL_OR_LONE_SURROGATE.test(s);

export const STORABLE_MESSAGE = "must not contain NUL (\\u0000) or unpaired surrogate characters";

/**
 * An input string (by default z.string(); also z.url(), z.email() …) that Postgres can store. Every
 * string of every input schema is one: `text().min(1).max(200)`.
 */
export function text(): z.ZodString;
export function text<T extends z.ZodType<string>>(schema: T): T;
export function text(schema: z.ZodType<string> = z.string()) {
  return schema.refine(isStorableText, { message: STORABLE_MESSAGE, abort: true });
}

/**
 * The times we accept: years 1 to 9999. Postgres' timestamptz goes from 4713 BC to 294276 AD and
 * JavaScript's Date further, but outside four-digit years ISO strings need a sign and six digits,
 * which neither Postgres nor most clients read back, and no memory is dated there.
 */
export const MIN_TIME = new Date("0001-01-01T00:00:00.000Z").getTime();
export const MAX_TIME = new Date("9999-12-31T23:59:59.999Z").getTime();

export const isAcceptedTime = (d: Date): boolean => {
  const t = d.getTime();
  return !Number.isNaN(t) && t >= MIN_TIME && t <= MAX_TIME;
};

/** A point in time: a Date (superjson clients), an ISO date-time with offset, or an ISO date; years 1–9999. */
export const Instant = z
  .union([z.date(), z.iso.datetime({ offset: true }), z.iso.date()])
  .transform((v) => new Date(v))
  .refine(isAcceptedTime, "must be a valid time between the years 1 and 9999")
  .meta({
    // the REST document (zod-openapi) shows the two JSON forms, not the Date (a bare "string" there)
    override: ({ jsonSchema }: { jsonSchema: { anyOf?: { format?: string }[] } }) => {
      jsonSchema.anyOf = jsonSchema.anyOf?.filter((s) => s.format !== undefined);
    },
  });

/**
 * A yes or no: true or false, or "true" or "false" as a REST query string carries it. Not
 * z.boolean(): the REST handler (trpc-to-openapi) switches on zod's coercion of every z.boolean()
 * of an input it serves, in place, so for tRPC too, and Boolean("false") is true. A pipe is left
 * alone, and reads the strings itself.
 */
export const Flag = z
  .union([z.boolean(), z.enum(["true", "false"])])
  .transform((v) => v === true || v === "true");
