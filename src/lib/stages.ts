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
    help: "Gives the place entities the text's extraction found their coordinates, country and gazetteer id, from the geocoder (the offline GeoNames gazetteer by default, or GB_GEOCODER_URL's Nominatim-compatible service). An ambiguous name is settled by the countries the text names, the text's other places, then population; otherwise it stays unresolved and the output says why. Every lookup is an inference. On by default when the text has places; options.enrich.geo: false turns it off. If it fails, the run succeeds and is flagged.",
  },
  {
    name: "web_search",
    model: true,
    policy: "advisory",
    help: "Off unless options.enrich.webSearch is true and a search provider is configured (GB_SEARXNG_URL, or GB_BRAVE_API_KEY). Searches the web for the text's main entities with that provider only (never a URL found in the text), and keeps the top results as observation texts with their URL as the source, reconciled and stored like any text (load_candidates, resolve_edges, store). Every search is an inference. If it fails, the run succeeds and is flagged.",
  },
  {
    name: "fetch_series",
    model: false,
    policy: "advisory",
    help: "For a text in a series: loads the series' latest GB_SERIES_WINDOW members in order (occurredAt, then submission), with their facts and the numbers they hold (value, unit, time), for observe_series. options.enrich.observeSeries: false turns it off.",
  },
  {
    name: "observe_series",
    model: true,
    policy: "advisory",
    help: "For a text in a series: the model looks across the window fetch_series loaded and writes observations (a value that changed, a trend, something that started or stopped), each an observation text citing the series members it is drawn from, reconciled and stored like any text (load_candidates, resolve_edges, store). The builtin models find numeric changes and what appears or stops. If it fails, the run succeeds and is flagged.",
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
    help: "When the question names a place or asks for something near, around or close to one: finds the place and its coordinates with the geocoder (an inference), preferring a place the dataset already knows.",
  },
  {
    name: "nearby_geo",
    model: false,
    policy: "advisory",
    help: "Finds the entities with coordinates within radiusKm (query.ask's input, default 25 km) of the place detect_geo found, and their current facts, and fuses them into the sources with their distance.",
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
