/**
 * The stage tables: the single source of truth for the stages of each pipeline. The run-log
 * tables are generated from them (src/server/db/schema/run-logs.ts), the pipelines must list
 * exactly these names (a test checks it), and the admin pages show `help` behind each stage's `?`.
 * Plain data with no imports, so that the browser, drizzle-kit and the server can all load it.
 */

export interface StageDef {
  readonly name: string;
  /** whether the stage calls models (then its run-log group has `_inference_ids`) */
  readonly model: boolean;
  readonly help: string;
}

export const RememberStages = [
  {
    name: "classify_complexity",
    model: true,
    help: "Decides whether the text is simple or complex. The answer picks this run's model and reasoning defaults for the later stages, and whether chunk_text splits the text at all. With builtin models it is a heuristic of length and entity density.",
  },
  {
    name: "chunk_text",
    model: false,
    help: "Cuts the text into chunks of about GB_CHUNK_TOKENS tokens on sentence boundaries, with some overlap so that a fact spanning a cut is not lost. A short text is one chunk.",
  },
  {
    name: "extract_graph",
    model: true,
    help: "For every chunk, asks the model for the entities (name, type, aliases) and the facts between them (subject, predicate, object, one sentence, and when the text says so, when the fact started or stopped holding). Chunks may be extracted concurrently.",
  },
  {
    name: "summarize_chunk",
    model: true,
    help: "For every chunk, writes a short summary that is stored with the chunk and searched by query.",
  },
  {
    name: "load_candidates",
    model: true,
    help: "For every chunk, finds what the dataset already knows that may be the same as the new entities and facts, or conflict with them: exact names, similar names (trigram), full-text matches and embedding neighbours. Only current facts are candidates.",
  },
  {
    name: "resolve_edges",
    model: true,
    help: "For every chunk, decides whether each new entity is an existing one or new, and whether each new fact is a duplicate, new, an update or a contradiction of a current fact. A contradicted fact is never deleted: it gets invalidAt and expiredAt.",
  },
  {
    name: "store",
    model: false,
    help: "For every chunk, in one transaction, stores the entities, facts, chunk, summary, embeddings and where each came from (text, chunk, run). If the transaction fails, nothing of the chunk is stored.",
  },
  {
    name: "store_series",
    model: false,
    help: "Links the text into its series (position and time), when the text names a series.",
  },
  {
    name: "resolve_geo",
    model: true,
    help: "Advisory. Gives place entities their coordinates from the geocoder. The run succeeds even if this stage fails.",
  },
  {
    name: "web_search",
    model: true,
    help: "Advisory, off unless enabled and a search provider is configured. Searches the web about the text; the results become observations that are reconciled and stored like any text.",
  },
  {
    name: "fetch_series",
    model: false,
    help: "Advisory. Loads the recent members of the text's series for observe_series.",
  },
  {
    name: "observe_series",
    model: true,
    help: "Advisory. The model looks across the series (changes, trends, repeated patterns) and writes observations, which are reconciled and stored like any text.",
  },
] as const satisfies readonly StageDef[];

export const QueryStages = [
  {
    name: "embed_question",
    model: true,
    help: "Advisory. Embeds the question for the embedding lists of retrieve_graph, when the provider's embeddings are semantic (not the builtin hashed ones). If it fails, retrieve_graph searches by text alone and the run is flagged.",
  },
  {
    name: "retrieve_graph",
    model: true,
    help: "Finds what the dataset knows about the question: full-text, entity-name and embedding candidates, expanded one hop through the graph, current facts only (or those valid at asOf), fused and cut to a token budget. When nothing is found the pipeline stops here and the fixed no-information answer is returned without calling a model.",
  },
  {
    name: "detect_geo",
    model: true,
    help: "Advisory. Runs when the question names a place or asks for something near one: finds the place and its coordinates.",
  },
  {
    name: "nearby_geo",
    model: false,
    help: "Advisory. Adds the entities and facts within a radius of the detected place to the context.",
  },
  {
    name: "query",
    model: true,
    help: "Writes the answer from the retrieved context (and the session's short-term memory when a session is given), citing the sources it used as [n].",
  },
] as const satisfies readonly StageDef[];

export type RememberStageName = (typeof RememberStages)[number]["name"];
export type QueryStageName = (typeof QueryStages)[number]["name"];

export const StageStatuses = ["not_started", "started", "succeeded", "failed", "skipped"] as const;
export type StageStatus = (typeof StageStatuses)[number];

export const RunStatuses = ["queued", "started", "succeeded", "failed"] as const;
export type RunStatus = (typeof RunStatuses)[number];

export type RunKind = "remember" | "query";

export const StageTables = { remember: RememberStages, query: QueryStages } as const;
