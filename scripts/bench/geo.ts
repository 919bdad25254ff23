import { gazetteer } from "../../src/server/enrich/geo/gazetteer";
import { gazetteerGeocoder } from "../../src/server/enrich/geo/geocoder";

/*
 * The offline geocoder's figures (#15): the gazetteer's load time, and lookups per second of
 * place names, unique ones and names many places share (Springfield, Richmond), with and
 * without a country hint.
 */
export async function benchGeo(): Promise<string[][]> {
  let t = performance.now();
  const g = await gazetteer();
  const loadMs = performance.now() - t;
  const sample = ["Paris", "Springfield", "Lyon", "Villeurbanne", "São Paulo", "Lisbon", "Portland", "Richmond", "Cambridge", "Valencia"];
  const geo = gazetteerGeocoder();
  const rows: string[][] = [["geocoder", "places", "load ms", "lookups", "per second", "with a country hint per second"]];
  const rounds = 2000;
  t = performance.now();
  for (let i = 0; i < rounds; i++) await geo.lookup({ name: sample[i % sample.length]! });
  const plain = rounds / ((performance.now() - t) / 1000);
  t = performance.now();
  for (let i = 0; i < rounds; i++) await geo.lookup({ name: sample[i % sample.length]!, countries: ["US"] });
  const hinted = rounds / ((performance.now() - t) / 1000);
  rows.push(["gazetteer (offline)", String(g.size), loadMs.toFixed(0), String(rounds), plain.toFixed(0), hinted.toFixed(0)]);
  return rows;
}
