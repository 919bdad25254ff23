import type { Env } from "../../env";
import { type Geocoder, gazetteerGeocoder } from "./geo/geocoder";
import { nominatimGeocoder } from "./geo/nominatim";
import { braveSearch } from "./search/brave";
import { searxngSearch } from "./search/searxng";
import type { WebSearch } from "./search/types";

/**
 * The enrichment providers of this process (#15), made once from the environment: the geocoder
 * (GB_GEOCODER_URL, else the offline gazetteer), the web search provider (GB_SEARXNG_URL or
 * GB_BRAVE_API_KEY; none: web_search never runs) and the series window.
 */
export interface Enrichment {
  readonly geocoder: Geocoder;
  readonly search: WebSearch | null;
  /** GB_SERIES_WINDOW: how many of a series' latest members fetch_series loads */
  readonly seriesWindow: number;
}

export function createEnrichment(env: Env): Enrichment {
  return {
    geocoder: env.GB_GEOCODER_URL ? nominatimGeocoder(env.GB_GEOCODER_URL) : gazetteerGeocoder(),
    search: env.GB_SEARXNG_URL
      ? searxngSearch(env.GB_SEARXNG_URL)
      : env.GB_BRAVE_API_KEY
        ? braveSearch({ url: env.GB_BRAVE_URL, key: env.GB_BRAVE_API_KEY })
        : null,
    seriesWindow: env.GB_SERIES_WINDOW,
  };
}
