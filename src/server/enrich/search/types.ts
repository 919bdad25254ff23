/*
 * Web search (#15) behind one interface: web_search asks the configured provider about a text's
 * main entities. A provider calls only its own API; nothing ever fetches a URL found in a text.
 */

export interface SearchResult {
  title: string;
  url: string;
  /** the engine's excerpt of the page */
  snippet: string;
}

export interface WebSearch {
  /** "searxng" or "brave": the inference rows' provider */
  readonly name: string;
  /** what is called (the API's address without credentials): the inference rows' model */
  readonly endpoint: string;
  /** the top results for `query`, best first; throws on an HTTP error or a malformed answer */
  search(query: string, opts: { limit: number; signal?: AbortSignal }): Promise<{ results: SearchResult[]; response: unknown }>;
}
