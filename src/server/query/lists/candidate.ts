import type { SQL } from "drizzle-orm";
import type { Part } from "../../db/batch";
import type { Db } from "../../db/client";
import type { VectorMemo } from "../../db/vector-memo";
import type { TermWeights } from "../bm25";
import type { Period } from "../fusion";
import type { SourceRef } from "../schemas";

/** What a retrieval list finds: a fact, or a chunk (given by its summary). */
export interface Candidate {
  /** `fact:<id>` or `summary:<chunk id>`: the same thing found by two lists is one candidate */
  key: string;
  kind: "fact" | "summary";
  id: string;
  text: string;
  validAt: Date | null;
  invalidAt: Date | null;
  entityIds: string[];
  source: SourceRef;
  /** when its text was said or written (occurredAt, else when it was remembered) */
  at: Date;
  /** found near the question's place (the nearby list): how far it is, in km, and by which of its entities */
  distanceKm?: number;
  nearEntity?: { id: string; name: string };
}

/** A point and a radius: where the nearby list looks (nearby_geo, from the place detect_geo found). */
export interface NearQuery {
  lat: number;
  lon: number;
  radiusKm: number;
}

/** What every list is asked: one question about one dataset. */
export interface ListQuery {
  db: Db;
  /**
   * Where the lists' one statement goes (retrieveLists), when not `db`: Database.genericDb, its
   * plan made once for any question of its shape (#16). A list of several steps (nearby) uses `db`.
   */
  listsDb?: Db;
  datasetId: string;
  question: string;
  /** the question's embedding; null when the embeddings are not semantic (no vector lists) */
  vector: number[] | null;
  /** facts that held then, and the texts known by then; null = now */
  asOf: Date | null;
  pgvector: boolean;
  /** without pgvector: this process's copy of the vector cells (db/vector-memo.ts), if it keeps one */
  memo?: VectorMemo | null;
  dimensions: number;
  /** the place the question asks about (nearby_geo); null: the nearby list finds nothing */
  near?: NearQuery | null;
  /** the time the question names (namedPeriod, against asOf or now); null when it names none */
  period: Period | null;
  /** the question's BM25 term weights (termWeights), fetched first: they say whether the dataset is empty */
  weights: TermWeights;
}

/** A list's statement for one question, and its candidates (best first, at most its limit) from the rows. */
export interface ListStatement {
  part: Part<unknown>;
  candidates(rows: unknown[]): Candidate[];
}

/** A ListStatement of rows of one type (the registry holds them all as one type). */
export function listStatement<T>(part: Part<T>, candidates: (rows: T[]) => Candidate[]): ListStatement {
  // the rows given back are those `part.decode` made: of type T
  return { part, candidates: candidates as (rows: unknown[]) => Candidate[] };
}

/**
 * A retrieval list. Most are one statement each (`statement`, null when the question gives it
 * nothing to look for); retrieve.ts sends them all as one (db/batch.ts), and a list that reads
 * another's rows names it in `reads` and finds them with `ref` (null when that list has no
 * statement for this question). A list of several steps (nearby) runs on its own.
 */
export type RetrievalList =
  | { reads?: readonly string[]; statement(q: ListQuery, ref: (list: string) => SQL | null): ListStatement | null }
  | { run(q: ListQuery): Promise<Candidate[]> };
