import { z } from "zod";

/*
 * What verbs answer, as zod schemas: tRPC validates every answer against its procedure's
 * `.output()`, and the REST document (api/openapi.ts) is generated from the same schemas. An
 * output schema that does not match its verb turns a working call into INTERNAL_SERVER_ERROR,
 * so each is made with outputSchema<TheVerbsType>(), which tsc refuses unless the two are the same
 * shape. Output schemas have no refinements (ids are z.string(), not z.uuid()): tsc cannot see
 * those, and an answer must never fail on one. Objects are not strict: a field the schema does not
 * know is dropped from the answer, never an error.
 */

/** Every key required, all the way down (Dates and functions left alone), so optional keys count too. */
type Deep<T> = T extends Date | ((...args: never[]) => unknown) ? T : T extends object ? { [K in keyof T]-?: Deep<T[K]> } : T;

/** A and B are assignable both ways, with optional keys compared as if required (none may be missing on either side). */
export type SameShape<A, B> = [Deep<A>] extends [Deep<B>] ? ([Deep<B>] extends [Deep<A>] ? true : false) : false;

interface Mismatch<Schema, Verb> {
  "the output schema does not describe the verb's type": { schema: Schema; verb: Verb };
}

/**
 * The schema of what a verb returns (T), checked by tsc: `outputSchema<RunDetail>()(z.object(…))`
 * compiles only when the schema's type and T are the same shape.
 */
export function outputSchema<T>() {
  return <S extends z.ZodType>(schema: S & (SameShape<z.output<S>, T> extends true ? unknown : Mismatch<z.output<S>, T>)): S => schema;
}

/**
 * A point in time in an answer: a Date to tRPC (superjson), an ISO string in REST's JSON, which
 * is what the document says (zod-openapi alone says "string").
 */
export const Timestamp = z.date().meta({ format: "date-time" });
