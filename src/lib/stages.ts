/**
 * The stage tables: the single source of truth for the stages of each pipeline. The run-log
 * tables are generated from them (src/server/db/schema/run-logs.ts), the pipelines must list
 * exactly these names with these policies (a test checks it), and the admin pages show `help`
 * behind each stage's `?`, "Advisory" from `policy`, and "not in this version" for a placeholder.
 * Plain data with no imports, so that the browser, drizzle-kit and the server can all load it.
 */

/** What a failure of the stage does to its call: ends it (fatal), or is noted on the stage and the call goes on (advisory, the run is flagged). */
export type StagePolicy = "fatal" | "advisory";

export interface StageDef {
  readonly name: string;
  /** whether the stage calls models (then its run-log group has inference ids) */
  readonly model: boolean;
  /** the pipelines take it from here (a test checks them) and the run pages show it */
  readonly policy: StagePolicy;
  /**
   * A stage whose capability is not in this version: it never runs, the run page says so, and an
   * input that asks for it is refused (src/server/stages.ts). Switching it on is deleting this line.
   */
  readonly placeholder?: true;
  readonly help: string;
}

/** What the run page shows instead of a placeholder's help text. */
export const NOT_IN_THIS_VERSION = "not in this version";

export const RememberStages = [
  {
    name: "classify_complexity",
    model: true,
    policy: "advisory",
    help: "Decides whether the text is simple or complex. The answer picks this run's model and reasoning defaults for the later stages, and whether chunk_text splits the text at all. With builtin models it is a heuristic of length and entity density. If it fails, the text is chunked as usual with the default models, and the run is flagged.",
  },
  {
    name: "chunk_text",
    model: false,
    policy: "fatal",
    help: "Cuts the text into chunks of about GB_CHUNK_TOKENS tokens on sentence boundaries, with some overlap so that a fact spanning a cut is not lost. A short text is one chunk.",
  },
  {
    name: "extract_graph",
    model: true,
    policy: "fatal",
    help: "For every chunk, asks the model for the entities (name, type, aliases) and the facts between them (subject, predicate, object, one sentence, and when the text says so, when the fact started or stopped holding). Chunks may be extracted concurrently.",
  },
  {
    name: "summarize_chunk",
    model: true,
    policy: "fatal",
    help: "For every chunk, writes a short summary that is stored with the chunk and searched by query.",
  },
  {
    name: "load_candidates",
    model: true,
    policy: "fatal",
    help: "For every chunk, finds what the dataset already knows that may be the same as the new entities and facts, or conflict with them: exact names, similar names (trigram) and embedding neighbours (only with a provider whose embeddings carry meaning: the builtin models make none). Candidate facts are the current facts with the same subject and predicate, or the same subject and object, as one of the chunk's facts.",
  },
  {
    name: "resolve_edges",
    model: true,
    policy: "fatal",
    help: "For every chunk, decides whether each new entity is an existing one or new, and whether each new fact is a duplicate, new, an update or a contradiction of a current fact. A contradicted fact is never deleted: it gets invalidAt and expiredAt.",
  },
  {
    name: "store",
    model: false,
    policy: "fatal",
    help: "For every chunk, in one transaction, stores the entities, facts, chunk, summary, embeddings and where each came from (text, chunk, run). If the transaction fails, nothing of the chunk is stored.",
  },
  {
    name: "store_series",
    model: false,
    policy: "fatal",
    help: "Links the text into its series (position and time), when the text names a series.",
  },
  {
    name: "resolve_geo",
    model: true,
    policy: "advisory",
    placeholder: true,
    help: "Not in this version (it comes with enrichment; options.enrich.geo is refused until then). It will give place entities their coordinates from the geocoder; the run succeeds even if it fails.",
  },
  {
    name: "web_search",
    model: true,
    policy: "advisory",
    placeholder: true,
    help: "Not in this version (it comes with enrichment; options.enrich.webSearch is refused until then). Off unless enabled and a search provider is configured, it will search the web about the text; the results become observations that are reconciled and stored like any text.",
  },
  {
    name: "fetch_series",
    model: false,
    policy: "advisory",
    placeholder: true,
    help: "Not in this version (it comes with enrichment; options.enrich.observeSeries is refused until then). It will load the recent members of the text's series for observe_series.",
  },
  {
    name: "observe_series",
    model: true,
    policy: "advisory",
    placeholder: true,
    help: "Not in this version (it comes with enrichment; options.enrich.observeSeries is refused until then). The model will look across the series (changes, trends, repeated patterns) and write observations, which are reconciled and stored like any text.",
  },
] as const satisfies readonly StageDef[];

export const QueryStages = [
  {
    name: "embed_question",
    model: true,
    policy: "advisory",
    help: "Embeds the question for the embedding lists of retrieve_graph, when the provider's embeddings are semantic (not the builtin hashed ones). If it fails, retrieve_graph searches by text alone and the run is flagged.",
  },
  {
    name: "retrieve_graph",
    model: true,
    policy: "fatal",
    help: "Finds what the dataset knows about the question: full-text, entity-name and embedding candidates, expanded one hop through the graph, current facts only (or those valid at asOf), fused and cut to a token budget. When nothing is found the pipeline stops here and the fixed no-information answer is returned without calling a model.",
  },
  {
    name: "detect_geo",
    model: true,
    policy: "advisory",
    placeholder: true,
    help: "Not in this version (it comes with geo enrichment). It will run when the question names a place or asks for something near one, and find the place and its coordinates.",
  },
  {
    name: "nearby_geo",
    model: false,
    policy: "advisory",
    placeholder: true,
    help: "Not in this version (it comes with geo enrichment). It will add the entities and facts within a radius of the detected place to the context.",
  },
  {
    name: "query",
    model: true,
    policy: "fatal",
    help: "Writes the answer from the retrieved context, citing the sources it used as [n]. With a `scope`, the scope's short-term memory (its summary, notes and recent messages) joins the prompt to read the question by; the stage's output says which keys were used. The builtin provider answers from the sources alone.",
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
