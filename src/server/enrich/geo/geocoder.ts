import { type Gazetteer, gazetteer, type Place } from "./gazetteer";

/*
 * Geocoders (#15): a place's name to its coordinates, behind one interface. The default is the
 * offline gazetteer (gazetteer.ts); an HTTP geocoder with Nominatim's API is the other
 * (nominatim.ts, GB_GEOCODER_URL). Both answer with the candidates they found and the one chosen
 * by `choose`, or none, with the reason, when the name is unknown or stays ambiguous.
 */

export interface GeoPoint {
  lat: number;
  lon: number;
}

export interface GeoCandidate extends GeoPoint {
  /** the provider's id of the place (GeoNames id, Nominatim's osm type and id) */
  ref: string;
  name: string;
  /** ISO 3166-1 alpha-2, upper case; "" when unknown */
  country: string;
  /** inhabitants (the gazetteer), or null (Nominatim ranks by importance instead) */
  population: number | null;
}

export interface GeoQuery {
  name: string;
  /** countries the text names (ISO alpha-2): a candidate in one of them goes first */
  countries?: readonly string[];
  /** places of the same text already placed: a candidate near one of them goes first */
  near?: readonly GeoPoint[];
}

export interface GeoResult {
  place: GeoCandidate | null;
  /**
   * what settled it: the only place of the name (alone, or in the countries the text names), a
   * nearby place of the text, a dominant population, the provider's ranking; null when none
   */
  basis: "only" | "near" | "population" | "provider" | null;
  /** why this place, or why none: for the stage's output */
  reason: string;
  /** the candidates considered, best first (at most five) */
  candidates: GeoCandidate[];
}

export interface Geocoder {
  readonly name: "gazetteer" | "nominatim";
  /** what answers: "gazetteer", or the HTTP geocoder's address (an inference row's model) */
  readonly model: string;
  lookup(query: GeoQuery): Promise<GeoResult>;
}

const EARTH_KM = 6371.0088;
const rad = (d: number) => (d * Math.PI) / 180;

/** Great-circle distance in km (haversine). */
export function distanceKm(a: GeoPoint, b: GeoPoint): number {
  const h = Math.sin(rad(b.lat - a.lat) / 2) ** 2 + Math.cos(rad(a.lat)) * Math.cos(rad(b.lat)) * Math.sin(rad(b.lon - a.lon) / 2) ** 2;
  return 2 * EARTH_KM * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** a candidate this near another place of the text is taken to be the one meant */
export const NEAR_KM = 300;
/** the most populous candidate is taken alone when it has this many times the next one's inhabitants */
export const DOMINANT = 5;

/**
 * The candidate meant, from the text's hints, in order: the countries it names, the places near
 * the text's other places, then a population that dwarfs the rest ("Paris" is Paris, France,
 * 2.1 M against 25k for Paris, Texas). Left unresolved when the hints and population do not
 * settle it (three Springfields of similar size), with the reason.
 */
export function choose(query: GeoQuery, found: readonly GeoCandidate[]): GeoResult {
  const top = (list: readonly GeoCandidate[]) => list.slice(0, 5);
  if (found.length === 0) return { place: null, basis: null, reason: `no place named "${query.name}"`, candidates: [] };
  let pool = [...found];
  const why: string[] = [];
  let nearBasis: "near" | null = null;
  const countries = new Set((query.countries ?? []).map((c) => c.toUpperCase()));
  const inCountry = pool.filter((c) => countries.has(c.country));
  if (inCountry.length > 0 && inCountry.length < pool.length) {
    pool = inCountry;
    why.push(`in ${[...new Set(inCountry.map((c) => c.country))].join(", ")}, which the text names`);
  }
  const near = query.near ?? [];
  if (near.length > 0 && pool.length > 1) {
    const dist = (c: GeoCandidate) => Math.min(...near.map((p) => distanceKm(c, p)));
    const close = pool.filter((c) => dist(c) <= NEAR_KM).sort((a, b) => dist(a) - dist(b));
    if (close.length > 0 && close.length < pool.length) {
      pool = close;
      nearBasis = "near";
      why.push(`${Math.round(dist(close[0]!))} km from another place of the text`);
    }
  }
  if (pool.length === 1) return { place: pool[0]!, basis: nearBasis ?? "only", reason: why.join("; ") || "the only place of that name", candidates: top(found) };
  const [first, second] = pool;
  if (first!.population !== null && second!.population !== null) {
    if (first!.population >= DOMINANT * Math.max(1, second!.population)) {
      why.push(`${first!.population.toLocaleString("en")} inhabitants against ${second!.population.toLocaleString("en")} for the next of that name`);
      return { place: first!, basis: nearBasis ?? "population", reason: why.join("; "), candidates: top(pool) };
    }
    return {
      place: null,
      basis: null,
      reason: `ambiguous: ${pool.length} places named "${query.name}" of similar size (${top(pool)
        .map((c) => `${c.name}, ${c.country}`)
        .join("; ")})${why.length ? `, even ${why.join("; ")}` : ""}`,
      candidates: top(pool),
    };
  }
  // a provider without populations ranks its answers itself: its first
  why.push("the provider's first answer");
  return { place: first!, basis: nearBasis ?? "provider", reason: why.join("; "), candidates: top(pool) };
}

const fromPlace = (p: Place): GeoCandidate => ({ ref: `geonames:${p.id}`, name: p.name, country: p.country, population: p.population, lat: p.lat, lon: p.lon });

/** The offline geocoder: the gazetteer's places of that name, chosen by `choose`. */
export function gazetteerGeocoder(load: () => Promise<Gazetteer> = gazetteer): Geocoder {
  return {
    name: "gazetteer",
    model: "gazetteer",
    async lookup(query) {
      const g = await load();
      return choose(query, g.named(query.name).map(fromPlace));
    },
  };
}

let countryNames: { code: string; re: RegExp }[] | null = null;

/**
 * The countries a text names, as ISO alpha-2 codes ("… in France" → FR), by their English names
 * as the runtime's Intl knows them (no list of ours).
 */
export function countriesNamed(text: string): string[] {
  if (!countryNames) {
    const names = new Intl.DisplayNames(["en"], { type: "region", fallback: "none" });
    const A = "A".charCodeAt(0);
    countryNames = [];
    const seen = new Set<string>();
    for (let i = 0; i < 26; i++) {
      for (let j = 0; j < 26; j++) {
        const code = String.fromCharCode(A + i, A + j);
        const name = names.of(code);
        // a deprecated code of the same name ("FX", Metropolitan France, is "France" too): the first code only
        if (!name || name === code || /[^\p{L} .'’-]/u.test(name) || seen.has(name)) continue;
        seen.add(name);
        countryNames.push({ code, re: new RegExp(`(?<![\\p{L}])${name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(?![\\p{L}])`, "iu") });
      }
    }
  }
  return countryNames.filter((c) => c.re.test(text)).map((c) => c.code);
}
