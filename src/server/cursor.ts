import { ValidationError } from "./errors";
import { isAcceptedTime, isStorableText } from "./input";

/*
 * Page cursors: the sort key of the last row of a page, as opaque base64url JSON. Every list
 * that pages (runs, entities, audit) uses these, so a forged cursor is the same clear error
 * everywhere. Decoding checks each part against the column it will be compared with (a
 * timestamp, a uuid, text), so a forged cursor never reaches SQL as a value the database rejects.
 */

/** What each part of a cursor is: the column type it is compared with. */
export type CursorPart = "timestamp" | "uuid" | "text";
type Decoded<P extends readonly CursorPart[]> = { -readonly [K in keyof P]: P[K] extends "timestamp" ? Date : string };

/** The longest cursor read (a sort key of a long entity name and an id, base64url). */
export const MAX_CURSOR = 2000;
const BASE64URL = /^[A-Za-z0-9_-]*$/;
/** exactly what Date.toISOString() writes, years 0001–9999 */
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function encodeCursor(key: readonly (string | Date)[]): string {
  return Buffer.from(JSON.stringify(key.map((k) => (k instanceof Date ? k.toISOString() : k)))).toString("base64url");
}

function decodePart(part: CursorPart, value: unknown): Date | string | null {
  if (typeof value !== "string") return null;
  switch (part) {
    case "timestamp": {
      const d = new Date(value);
      // the round trip refuses what Date parses leniently (a 31st of February)
      return ISO.test(value) && isAcceptedTime(d) && d.toISOString() === value ? d : null;
    }
    case "uuid":
      return UUID.test(value) ? value : null;
    case "text":
      return value.length <= MAX_CURSOR && isStorableText(value) ? value : null;
  }
}

function parseJson(s: string): unknown {
  try {
    return JSON.parse(s);
  } catch {
    return null; // not JSON: not a cursor
  }
}

export function decodeCursor<const P extends readonly CursorPart[]>(cursor: string, parts: P): Decoded<P> {
  if (cursor.length <= MAX_CURSOR && BASE64URL.test(cursor)) {
    const key = parseJson(Buffer.from(cursor, "base64url").toString());
    if (Array.isArray(key) && key.length === parts.length) {
      const decoded = parts.map((p, i) => decodePart(p, key[i]));
      if (decoded.every((d) => d !== null)) return decoded as Decoded<P>;
    }
  }
  throw new ValidationError("cursor", "is not a cursor this API returned");
}
