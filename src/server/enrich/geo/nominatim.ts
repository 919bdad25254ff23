import { z } from "zod";
import { ModelError } from "../../models/types";
import { choose, type GeoCandidate, type Geocoder } from "./geocoder";

/*
 * An HTTP geocoder with Nominatim's search API (GB_GEOCODER_URL: a Nominatim server, or any
 * that answers like one): GET <url>/search?q=<name>&format=jsonv2&limit=5&addressdetails=1. Its
 * answers come ranked by importance; `choose` applies the text's hints on top. Only that URL
 * is ever asked.
 */

const Answer = z.array(
  z
    .object({
      osm_type: z.string().optional(),
      osm_id: z.union([z.number(), z.string()]).optional(),
      place_id: z.union([z.number(), z.string()]).optional(),
      lat: z.coerce.number(),
      lon: z.coerce.number(),
      name: z.string().optional(),
      display_name: z.string().optional(),
      address: z.object({ country_code: z.string().optional() }).loose().optional(),
    })
    .loose(),
);

/**
 * A failed geocoder call: a ModelError (branded "model", errors.ts) of the geocoder's address,
 * since an inference row and a run's stage treat it as a model call that failed. `transient`: no
 * answer, or a 408/429/5xx.
 */
export class GeocoderError extends ModelError {
  constructor(message: string, details: { model: string; request: unknown; response?: unknown; transient?: boolean }) {
    super(message, details);
    this.name = "GeocoderError";
  }
}

const transientStatus = (status: number) => status === 408 || status === 429 || status >= 500;

export function nominatimGeocoder(baseUrl: string, opts: { timeoutMs?: number; fetch?: typeof fetch } = {}): Geocoder {
  const get = opts.fetch ?? fetch;
  return {
    name: "nominatim",
    model: baseUrl,
    async lookup(query) {
      const url = new URL("search", baseUrl.endsWith("/") ? baseUrl : `${baseUrl}/`);
      url.search = new URLSearchParams({ q: query.name, format: "jsonv2", limit: "5", addressdetails: "1" }).toString();
      const details = { model: baseUrl, request: { url: url.pathname + url.search } };
      let res: Response;
      try {
        res = await get(url, { headers: { accept: "application/json" }, signal: AbortSignal.timeout(opts.timeoutMs ?? 10_000) });
      } catch (e) {
        throw new GeocoderError(`geocoder ${url.origin} did not answer: ${e instanceof Error ? e.message : String(e)}`, { ...details, transient: true });
      }
      if (!res.ok) throw new GeocoderError(`geocoder ${url.origin} answered HTTP ${res.status}`, { ...details, transient: transientStatus(res.status) });
      const body: unknown = await res.json().catch(() => null);
      const parsed = Answer.safeParse(body);
      if (!parsed.success) throw new GeocoderError(`geocoder ${url.origin} answered something that is not a Nominatim search result`, { ...details, response: body });
      const found: GeoCandidate[] = parsed.data.map((r) => ({
        ref: r.osm_type && r.osm_id !== undefined ? `osm:${r.osm_type}/${r.osm_id}` : `nominatim:${r.place_id ?? ""}`,
        name: r.name || r.display_name?.split(",")[0]?.trim() || query.name,
        country: (r.address?.country_code ?? "").toUpperCase(),
        population: null,
        lat: r.lat,
        lon: r.lon,
      }));
      return choose(query, found);
    },
  };
}
