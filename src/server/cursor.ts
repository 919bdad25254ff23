import { ValidationError } from "./errors";

/*
 * Page cursors: the sort key of the last row of a page, as opaque base64url JSON. Every list
 * that pages (runs, entities) uses these, so a forged cursor is the same clear error everywhere.
 */

export function encodeCursor(key: readonly [string, string]): string {
  return Buffer.from(JSON.stringify(key)).toString("base64url");
}

export function decodeCursor(cursor: string): [string, string] {
  try {
    const key: unknown = JSON.parse(Buffer.from(cursor, "base64url").toString());
    if (Array.isArray(key) && key.length === 2 && key.every((k) => typeof k === "string")) return key as [string, string];
  } catch {
    // not JSON: falls through to the error below
  }
  throw new ValidationError("cursor", "is not a cursor this API returned");
}
