import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { gazetteer } from "./gazetteer";
import { choose, countriesNamed, distanceKm, gazetteerGeocoder } from "./geocoder";
import { GeocoderError, nominatimGeocoder } from "./nominatim";

describe("the offline gazetteer", () => {
  const geo = gazetteerGeocoder();

  it("holds GeoNames' places of 1,000 inhabitants and more, by name whatever the case and accents", async () => {
    const g = await gazetteer();
    expect(g.size).toBeGreaterThan(100_000);
    expect(g.named("sao paulo")[0]).toMatchObject({ name: "São Paulo", country: "BR" });
    expect(g.named("SÃO PAULO")[0]?.id).toBe(g.named("São Paulo")[0]?.id);
  });

  it("places Lyon and Villeurbanne a few kilometres apart", async () => {
    const lyon = await geo.lookup({ name: "Lyon" });
    const villeurbanne = await geo.lookup({ name: "Villeurbanne" });
    expect(lyon.place).toMatchObject({ country: "FR" });
    expect(villeurbanne.place).toMatchObject({ country: "FR" });
    expect(distanceKm(lyon.place!, villeurbanne.place!)).toBeLessThan(10);
  });

  it("an ambiguous name: the most populous when it dwarfs the rest, the text's country or nearby places otherwise", async () => {
    const paris = await geo.lookup({ name: "Paris" });
    expect(paris.place).toMatchObject({ country: "FR" });
    expect(paris.reason).toMatch(/inhabitants/);
    // Paris, Texas: the text names the United States and a place near Dallas
    const dallas = (await geo.lookup({ name: "Dallas" })).place!;
    const texas = await geo.lookup({ name: "Paris", countries: ["US"], near: [dallas] });
    expect(texas.place).toMatchObject({ country: "US" });
    expect(distanceKm(texas.place!, dallas)).toBeLessThan(300);
    // Springfields of similar size and no hint: left unresolved, saying why
    const springfield = await geo.lookup({ name: "Springfield", countries: ["US"] });
    expect(springfield.place).toBeNull();
    expect(springfield.reason).toMatch(/^ambiguous: \d+ places named "Springfield"/);
    expect(springfield.candidates.length).toBeGreaterThan(1);
    expect(await geo.lookup({ name: "Nowhereville Upon Nothing" })).toMatchObject({ place: null, reason: 'no place named "Nowhereville Upon Nothing"' });
  });

  it("reads the countries a text names", () => {
    expect(countriesNamed("We flew from France to the United States, then Brazil.").sort()).toEqual(["BR", "FR", "US"]);
    expect(countriesNamed("Frances went to Chadwick's")).toEqual([]);
  });
});

describe("choose", () => {
  const c = (name: string, country: string, population: number | null, lat = 0, lon = 0) => ({ ref: name + country, name, country, population, lat, lon });
  it("takes a provider's first answer when it gives no populations, the text's country first", () => {
    expect(choose({ name: "X" }, [c("X", "GB", null), c("X", "US", null)]).place?.country).toBe("GB");
    expect(choose({ name: "X", countries: ["us"] }, [c("X", "GB", null), c("X", "US", null)]).place?.country).toBe("US");
  });
});

describe("a Nominatim-compatible geocoder on 127.0.0.1", () => {
  let url = "";
  let status = 200;
  const asked: string[] = [];
  const server = createServer((req, res) => {
    asked.push(req.url ?? "");
    res.writeHead(status, { "content-type": "application/json" });
    res.end(
      status === 200
        ? JSON.stringify([
            { osm_type: "relation", osm_id: 120965, lat: "45.7578", lon: "4.8320", name: "Lyon", display_name: "Lyon, Rhône, France", address: { country_code: "fr" } },
            { osm_type: "node", osm_id: 1, lat: "41.2", lon: "-73.5", name: "Lyon", display_name: "Lyon, New York, United States", address: { country_code: "us" } },
          ])
        : "{}",
    );
  });
  beforeAll(async () => {
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it("asks /search with the name and takes its ranking, the text's hints on top", async () => {
    const geo = nominatimGeocoder(url);
    const r = await geo.lookup({ name: "Lyon" });
    expect(r.place).toMatchObject({ ref: "osm:relation/120965", country: "FR", lat: 45.7578, lon: 4.832 });
    expect(asked.at(-1)).toMatch(/^\/search\?q=Lyon&format=jsonv2&limit=5&addressdetails=1$/);
    expect((await geo.lookup({ name: "Lyon", countries: ["US"] })).place?.country).toBe("US");
  });

  it("an error status or a malformed answer is a GeocoderError saying so", async () => {
    status = 500;
    await expect(nominatimGeocoder(url).lookup({ name: "Lyon" })).rejects.toThrow(GeocoderError);
    await expect(nominatimGeocoder(url).lookup({ name: "Lyon" })).rejects.toThrow(/answered HTTP 500/);
    status = 200;
    await expect(nominatimGeocoder("http://127.0.0.1:1/").lookup({ name: "Lyon" })).rejects.toThrow(/did not answer/);
  });
});
