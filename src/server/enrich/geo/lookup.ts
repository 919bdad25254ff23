import type { Models } from "../../models/record";
import type { GeoQuery, GeoResult, Geocoder } from "./geocoder";

/**
 * One geocoder lookup, recorded as an inference (task "geocode") of the running stage: the query
 * with its hints as the request, the place chosen, why, and the candidates as the response. A
 * failure (an HTTP geocoder down) is recorded and thrown.
 */
export function geocode(models: Models, geocoder: Geocoder, query: GeoQuery): Promise<GeoResult> {
  return models.external({ task: "geocode", provider: geocoder.name, model: geocoder.model, request: query }, async () => {
    const result = await geocoder.lookup(query);
    return { value: result, response: result };
  });
}
