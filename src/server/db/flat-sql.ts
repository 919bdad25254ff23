import { SQL, StringChunk } from "drizzle-orm";

/*
 * A statement built of many nested sql`` pieces (the lists' one statement is thousands of them)
 * costs drizzle a recursive walk to put into text, each piece tested against a dozen kinds with
 * `is` (a walk up its prototypes): 0.6 ms of every query.ask's 5 ms of CPU (#16's profile).
 * flatSql splices the nested pieces into one flat list, their text run together, so that drizzle
 * walks a few dozen chunks, the values and identifiers between the texts. The text and
 * parameters it makes of that are the same (flat-sql.test.ts compares them).
 *
 * Only what needs no drizzle internals is spliced: text, nested SQL (unless its parameters are
 * to be inlined), arrays (drizzle writes "(a, b)") and undefined (nothing). Anything else
 * (a value, Name, Param, Table, Column…) is left as a chunk for drizzle. A piece from another
 * copy of drizzle (instanceof false, as in a bundle that holds two) is left as it is: drizzle
 * walks it as before, and the result is the same.
 */
/** whether drizzle is to write this piece's values into its text (sql.inlineParams(): a private field) */
const inlined = (piece: SQL) => (piece as unknown as { shouldInlineParams?: boolean }).shouldInlineParams === true;

export function flatSql(query: SQL): SQL {
  if (inlined(query)) return query;
  const chunks: unknown[] = [];
  let text = "";
  const walk = (pieces: readonly unknown[]): boolean => {
    for (const piece of pieces) {
      if (piece === undefined) continue;
      if (piece instanceof StringChunk) text += piece.value.join("");
      else if (piece instanceof SQL) {
        if (inlined(piece) || !walk(piece.queryChunks)) return false;
      } else if (Array.isArray(piece)) {
        text += "(";
        for (let i = 0; i < piece.length; i++) {
          if (i > 0) text += ", ";
          if (!walk([piece[i]])) return false;
        }
        text += ")";
      } else {
        if (text) chunks.push(new StringChunk(text));
        text = "";
        chunks.push(piece);
      }
    }
    return true;
  };
  if (!walk(query.queryChunks)) return query;
  if (text) chunks.push(new StringChunk(text));
  return new SQL(chunks as SQL["queryChunks"]);
}
