import { and, eq, inArray, isNull, or, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { chunks, entities, facts, mentions } from "../../db/schema";
import type { ExtractedGraph } from "../../models/types";
import type { Models } from "../../models/record";
import { nameKey } from "../../text/name-key";
import { countriesNamed, type GeoCandidate, type Geocoder, type GeoPoint, type GeoResult } from "./geocoder";
import { geocode } from "./lookup";

/** An entity type extraction gives a place (builtin: "place"; an LLM may say "city", "location" …). */
export function isPlaceType(type: string): boolean {
  return /^(place|location|city|town|village|country|region|state|province|address|venue|landmark|neighbou?rhood|district|municipality)$/i.test(type.trim());
}

/**
 * A predicate that puts its object somewhere: it ends with a preposition of place (lives_in,
 * opened_in, based_in, moved_to, works_near …). Extraction does not always type such an object a
 * place (the builtin models type "Villeurbanne" in "opened a bakery in Villeurbanne" a thing).
 */
const LOCATIVE = /_(in|at|near|from|to|into|around|outside|inside|across|towards?)$/;

/** Types that are never a place, whatever the predicate says (a person is "in" a company's team). */
const NEVER_PLACE = /^(person|people|organi[sz]ation|org|company|group|event|date|time|number|quantity)$/i;

/** An entity of the text may be a place: typed one, or a proper name that a locative fact puts something in. */
export function mayHavePlaces(graph: ExtractedGraph): boolean {
  if (graph.entities.some((e) => isPlaceType(e.type))) return true;
  const named = new Map(graph.entities.map((e) => [nameKey(e.name), e]));
  return graph.facts.some((f) => f.objectIsEntity && LOCATIVE.test(f.predicate) && mayBePlace(named.get(nameKey(f.object))));
}

function mayBePlace(e: { name: string; type: string } | undefined): boolean {
  return e !== undefined && !NEVER_PLACE.test(e.type.trim()) && /^\p{Lu}/u.test(e.name);
}

/** the most place names resolve_geo looks up for one text */
export const MAX_PLACE_NAMES = 100;

export interface ResolveGeoInput {
  db: Db;
  models: Models;
  geocoder: Geocoder;
  datasetId: string;
  /** the remember run (its entities: created or mentioned by its chunks) */
  runId: string;
  textId: string;
  text: string;
  /** the most names looked up (default MAX_PLACE_NAMES) */
  maxNames?: number;
}

export interface PlaceOutcome {
  entityId: string;
  name: string;
  /** resolved now; left without coordinates (see reason); or placed before this run */
  status: "resolved" | "unresolved" | "known";
  lat: number | null;
  lon: number | null;
  country: string | null;
  geoId: string | null;
  reason: string;
  candidates: GeoCandidate[];
}

export interface ResolveGeoOutput {
  /** the countries the text names (the geocoder's country hints) */
  countries: string[];
  places: PlaceOutcome[];
}

interface PlaceEntity {
  id: string;
  /** typed a place by extraction; else only a locative fact's object, a place if the geocoder knows it */
  typed: boolean;
  name: string;
  lat: number | null;
  lon: number | null;
  country: string | null;
  geoId: string | null;
}

/** The run's place entities: created by the run, or mentioned by the text's chunks. */
async function runPlaces({ db, datasetId, runId, textId }: ResolveGeoInput): Promise<PlaceEntity[]> {
  const textChunks = db.select({ id: chunks.id }).from(chunks).where(and(eq(chunks.datasetId, datasetId), eq(chunks.textId, textId)));
  const mentioned = db
    .select({ id: mentions.targetId })
    .from(mentions)
    .where(and(eq(mentions.datasetId, datasetId), eq(mentions.targetKind, "entity"), inArray(mentions.chunkId, textChunks)));
  const rows = await db
    .select({ id: entities.id, name: entities.name, type: entities.type, lat: entities.lat, lon: entities.lon, country: entities.country, geoId: entities.geoId })
    .from(entities)
    .where(and(eq(entities.datasetId, datasetId), or(eq(entities.createdRunId, runId), inArray(entities.id, mentioned))))
    .orderBy(entities.createdAt, entities.id);
  // the objects of the text's facts that put something somewhere
  const located = new Set(
    (
      await db
        .selectDistinct({ id: facts.objectId })
        .from(facts)
        .where(and(eq(facts.datasetId, datasetId), eq(facts.textId, textId), sql`${facts.objectId} IS NOT NULL`, sql`${facts.predicate} ~ ${LOCATIVE.source}`))
    ).map((r) => r.id),
  );
  return rows.flatMap(({ type, ...r }): PlaceEntity[] => (isPlaceType(type) ? [{ ...r, typed: true }] : located.has(r.id) && mayBePlace({ name: r.name, type }) ? [{ ...r, typed: false }] : []));
}

const point = (e: { lat: number | null; lon: number | null }): GeoPoint | null => (e.lat !== null && e.lon !== null ? { lat: e.lat, lon: e.lon } : null);

/**
 * resolve_geo's work: the run's place entities that have no coordinates yet get them from the
 * geocoder, with their country and the geocoder's id. Each name is looked up with the countries
 * the text names and the points of the text's places already known; a name that stays
 * ambiguous (several places of its name, settled only by population or the provider's ranking,
 * or not at all) is looked up again once the others are placed, with their points as `near`
 * hints: so "Paris" beside "Dallas" is Paris, Texas. Every lookup is an inference; a failing
 * geocoder throws (the stage fails, the run succeeds flagged).
 */
export async function resolveGeo(input: ResolveGeoInput): Promise<ResolveGeoOutput> {
  const { db, models, geocoder, datasetId, text } = input;
  const maxNames = input.maxNames ?? MAX_PLACE_NAMES;
  // in the order the text names them (the first named are looked up first, within the bound)
  const at = (name: string) => {
    const i = text.indexOf(name);
    return i < 0 ? Number.MAX_SAFE_INTEGER : i;
  };
  const places = (await runPlaces(input)).sort((a, b) => at(a.name) - at(b.name));
  const countries = countriesNamed(text);
  const knownPoints = places.map(point).filter((p) => p !== null);

  // one lookup per name (two entities of one name are one place of the text), at most
  // MAX_PLACE_NAMES a text: a book naming thousands of towns must not send thousands of requests
  // to a geocoder service (the places past the bound are listed, unresolved)
  const names = new Map<string, { name: string; result: GeoResult | null }>();
  for (const p of places) {
    if (p.lat === null && !names.has(nameKey(p.name)) && names.size < maxNames) names.set(nameKey(p.name), { name: p.name, result: null });
  }
  const query = (name: string, near: GeoPoint[]) => ({ name, ...(countries.length ? { countries } : {}), ...(near.length ? { near } : {}) });

  for (const n of names.values()) n.result = await geocode(models, geocoder, query(n.name, knownPoints));
  // the ambiguous names again, near the text's other places (settled ones, and the others' current choice)
  const settled = (r: GeoResult | null) => r?.basis === "only" || r?.basis === "near";
  for (const [key, n] of names) {
    if (settled(n.result) || !n.result?.candidates.length) continue;
    const others = [...names].filter(([k]) => k !== key).flatMap(([, o]) => (o.result?.place ? [o.result.place] : []));
    if (others.length === 0) continue;
    n.result = await geocode(models, geocoder, query(n.name, [...knownPoints, ...others.map((p) => ({ lat: p.lat, lon: p.lon }))]));
  }

  const out: PlaceOutcome[] = [];
  for (const p of places) {
    if (p.lat !== null) {
      out.push({ entityId: p.id, name: p.name, status: "known", lat: p.lat, lon: p.lon, country: p.country, geoId: p.geoId, reason: "placed before this run", candidates: [] });
      continue;
    }
    const looked = names.get(nameKey(p.name));
    if (!looked) {
      if (p.typed) out.push({ entityId: p.id, name: p.name, status: "unresolved", lat: null, lon: null, country: null, geoId: null, reason: `not looked up: the text names more than ${maxNames} places`, candidates: [] });
      continue;
    }
    const r = looked.result!;
    const found = r.place;
    // a locative fact's object that the geocoder does not know is not a place: not reported
    if (!p.typed && !found && r.candidates.length === 0) continue;
    // a country's name: no point in a gazetteer of towns, but the country is known
    const country = found?.country || (found ? null : countryOf(p.name));
    if (found || country) {
      await db
        .update(entities)
        .set({
          lat: found?.lat ?? null,
          lon: found?.lon ?? null,
          country: country || null,
          geoId: found?.ref ?? null,
          // a locative fact's object the geocoder knows is a place
          ...(p.typed || !found ? {} : { type: "place" }),
          updatedAt: sql`now()`,
        })
        .where(and(eq(entities.datasetId, datasetId), eq(entities.id, p.id), isNull(entities.lat)));
    }
    out.push({
      entityId: p.id,
      name: p.name,
      status: found ? "resolved" : "unresolved",
      lat: found?.lat ?? null,
      lon: found?.lon ?? null,
      country: country || null,
      geoId: found?.ref ?? null,
      reason: !found && country ? `${r.reason}; it is a country (${country})` : r.reason,
      candidates: r.candidates,
    });
  }
  return { countries, places: out };
}

let regionNames: Intl.DisplayNames | null = null;

/** The country a name is, when it is exactly a country's name ("France" → FR, not "Lyon, France"). */
function countryOf(name: string): string | null {
  regionNames ??= new Intl.DisplayNames(["en"], { type: "region", fallback: "none" });
  const code = countriesNamed(name)[0];
  return code && nameKey(regionNames.of(code) ?? "") === nameKey(name) ? code : null;
}
