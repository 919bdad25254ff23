import { z } from "zod";
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

export class GeocoderError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "GeocoderError";
  }
}

export function nominatimGeocoder(baseUrl: string, opts: { timeoutMs?: number; fetch?: typeof fetch } = {}): Geocoder {
  const get = opts.fetch ?? fetch;
  return {
    name: "nominatim",
    async lookup(query) {
      const url = new URL("search", baseUrl.endsWith("/") ? baseUrl : `${baseUrl}/`);
      url.search = new URLSearchParams({ q: query.name, format: "jsonv2", limit: "5", addressdetails: "1" }).toString();
      let res: Response;
      try {
        res = await get(url, { headers: { accept: "application/json" }, signal: AbortSignal.timeout(opts.timeoutMs ?? 10_000) });
      } catch (e) {
        throw new GeocoderError(`geocoder ${url.origin} did not answer: ${e instanceof Error ? e.message : String(e)}`);
      }
      if (!res.ok) throw new GeocoderError(`geocoder ${url.origin} answered HTTP ${res.status}`);
      const parsed = Answer.safeParse(await res.json().catch(() => null));
      if (!parsed.success) throw new GeocoderError(`geocoder ${url.origin} answered something that is not a Nominatim search result`);
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
