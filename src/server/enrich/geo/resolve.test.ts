import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { callerFor } from "../../../test/callers";
import { describeEachDriver, freshDataset } from "../../../test/db";
import type { App } from "../../app";
import { entities, inferences } from "../../db/schema";
import { distanceKm } from "./geocoder";
import { recordedModels } from "../../models/record";
import { resolveGeo, type ResolveGeoOutput } from "./resolve";

/** remember.submit through the app, waiting for the run; its stages' statuses and resolve_geo's output */
async function remember(app: App, dataset: string, text: string, extra: Record<string, unknown> = {}) {
  const api = callerFor(app);
  const r = await api.remember.submit({ dataset, text, wait: true, ...extra });
  expect(r).toMatchObject({ status: "succeeded", error: null });
  const run = await api.remember.get({ id: r.rememberRunId });
  const outputs = await api.runs.remember.outputs({ id: r.rememberRunId });
  const geo = outputs.find((o) => o.stage === "resolve_geo")?.output as ResolveGeoOutput | undefined;
  const geocodes = await app.database.db
    .select()
    .from(inferences)
    .where(and(eq(inferences.runId, r.rememberRunId), eq(inferences.task, "geocode")));
  return { id: r.rememberRunId, run, stage: run.stages.find((s) => s.name === "resolve_geo")!, geo, geocodes };
}

const place = (geo: ResolveGeoOutput | undefined, name: string) => geo?.places.find((p) => p.name === name);

describeEachDriver("resolve_geo, the offline gazetteer", (ctx) => {
  it("gives a place of the text its coordinates, country and GeoNames id; each lookup is an inference", async () => {
    const { app } = ctx();
    const ds = await freshDataset(app);
    const r = await remember(app, ds.name, "The Golden Crust bakery is based in Villeurbanne.");
    expect(r.stage.status).toBe("succeeded");
    const v = place(r.geo, "Villeurbanne")!;
    expect(v).toMatchObject({ status: "resolved", country: "FR", geoId: expect.stringMatching(/^geonames:\d+$/) });
    // Villeurbanne is beside Lyon (45.76, 4.83)
    expect(distanceKm({ lat: v.lat!, lon: v.lon! }, { lat: 45.76, lon: 4.83 })).toBeLessThan(10);
    const [row] = await app.database.db.select().from(entities).where(and(eq(entities.datasetId, ds.id), eq(entities.id, v.entityId)));
    expect(row).toMatchObject({ name: "Villeurbanne", lat: v.lat, lon: v.lon, country: "FR", geoId: v.geoId });
    // every lookup an inference of the stage, recorded with the gazetteer as its model
    expect(r.geocodes.length).toBeGreaterThan(0);
    expect(r.geocodes.every((i) => i.provider === "gazetteer" && i.model === "gazetteer" && i.stage === "resolve_geo" && i.error === null)).toBe(true);
    expect(r.stage.inferenceIds.sort()).toEqual(expect.arrayContaining(r.geocodes.map((i) => i.id).sort()));
    expect(r.geocodes[0]!.request).toMatchObject({ name: "Villeurbanne" });

    // told again: the place is known, and nothing is looked up
    const again = await remember(app, ds.name, "Marta is based in Villeurbanne.");
    expect(place(again.geo, "Villeurbanne")).toMatchObject({ status: "known", lat: v.lat, lon: v.lon });
    expect(again.geocodes).toEqual([]);
  });

  it("settles an ambiguous name by the text's other places and countries: Paris, Texas beside Dallas; Paris, France beside Lyon", async () => {
    const { app } = ctx();
    const texas = await remember(app, (await freshDataset(app)).name, "Tomas lives in Paris. He often drives to Dallas for work, since both are in Texas.");
    expect(place(texas.geo, "Dallas")).toMatchObject({ status: "resolved", country: "US" });
    const paris = place(texas.geo, "Paris")!;
    expect(paris).toMatchObject({ status: "resolved", country: "US" });
    expect(distanceKm({ lat: paris.lat!, lon: paris.lon! }, place(texas.geo, "Dallas") as { lat: number; lon: number })).toBeLessThan(300);
    expect(paris.reason).toMatch(/km from another place of the text/);
    expect(paris.candidates.map((c) => c.country)).toContain("FR");
    // no town is called Texas: left without coordinates, saying why
    expect(place(texas.geo, "Texas")).toMatchObject({ status: "unresolved", lat: null, reason: 'no place named "Texas"' });

    const france = await remember(app, (await freshDataset(app)).name, "Ines lives in Paris. Her brother has lived in Lyon, France since 2019.");
    expect(france.geo?.countries).toEqual(["FR"]);
    expect(place(france.geo, "Paris")).toMatchObject({ status: "resolved", country: "FR" });
    // a country is no town of the gazetteer, but its country is known
    const fr = place(france.geo, "France");
    if (fr) expect(fr).toMatchObject({ status: "unresolved", country: "FR" });
  });

  it("leaves a name of several places of similar size unresolved, with the reason and the candidates", async () => {
    const { app } = ctx();
    const r = await remember(app, (await freshDataset(app)).name, "Oskar travelled to Springfield last week.");
    const s = place(r.geo, "Springfield")!;
    expect(s).toMatchObject({ status: "unresolved", lat: null, lon: null, geoId: null });
    expect(s.reason).toMatch(/^ambiguous: \d+ places named "Springfield"/);
    expect(s.candidates.length).toBeGreaterThan(1);
    const [row] = await app.database.db.select().from(entities).where(eq(entities.id, s.entityId));
    expect(row?.lat).toBeNull();
  });

  it("places what a locative fact puts something in, though extraction typed it a thing; a name the gazetteer lacks stays as it was", async () => {
    const { app } = ctx();
    const ds = await freshDataset(app);
    // the builtin models type these objects "thing": "runs a bakery in X", "opened a shop in Y"
    const r = await remember(app, ds.name, "Odile Marchand runs a bakery in Villeurbanne. Pavel Novak opened a shop in Brightwater Commons.");
    expect(r.stage.status).toBe("succeeded");
    expect(place(r.geo, "Villeurbanne")).toMatchObject({ status: "resolved", country: "FR" });
    // not a place the geocoder knows: not reported, untouched
    expect(place(r.geo, "Brightwater Commons")).toBeUndefined();
    const rows = await app.database.db.select().from(entities).where(eq(entities.datasetId, ds.id));
    expect(rows.find((e) => e.name === "Villeurbanne")).toMatchObject({ type: "place", country: "FR" });
    const other = rows.find((e) => e.name === "Brightwater Commons");
    if (other) expect(other).toMatchObject({ lat: null, country: null });
    expect(rows.find((e) => e.name === "Odile Marchand")).toMatchObject({ lat: null, country: null });
  });

  it("looks up at most maxNames names of a text; the places past the bound are listed, not looked up", async () => {
    const { app } = ctx();
    const ds = await freshDataset(app);
    const text = "Ines lives in Lisbon. Tomas lives in Rotterdam. Greta lives in Hamburg.";
    const r = await remember(app, ds.name, text, { options: { enrich: { geo: false } } });
    const db = app.database.db;
    const models = recordedModels(app.provider, { db, datasetId: ds.id, runKind: null, runId: null });
    const out = await resolveGeo({ db, models, geocoder: app.enrich.geocoder, datasetId: ds.id, runId: r.id, textId: r.id, text, maxNames: 2 });
    expect(out.places.map((p) => [p.name, p.status])).toEqual([
      ["Lisbon", "resolved"],
      ["Rotterdam", "resolved"],
      ["Hamburg", "unresolved"],
    ]);
    expect(place(out, "Hamburg")!.reason).toBe("not looked up: the text names more than 2 places");
    const asked = await db.select().from(inferences).where(and(eq(inferences.datasetId, ds.id), eq(inferences.task, "geocode")));
    expect([...new Set(asked.map((i) => (i.request as { name: string }).name))].sort()).toEqual(["Lisbon", "Rotterdam"]);
  });

  it("is skipped with options.enrich.geo: false, and when the text names no place", async () => {
    const { app } = ctx();
    const ds = await freshDataset(app);
    const off = await remember(app, ds.name, "Jana is based in Villeurbanne.", { options: { enrich: { geo: false } } });
    expect(off.stage.status).toBe("skipped");
    expect(off.geocodes).toEqual([]);
    const [row] = await app.database.db.select().from(entities).where(and(eq(entities.datasetId, ds.id), eq(entities.name, "Villeurbanne")));
    expect(row?.lat).toBeNull();
    const none = await remember(app, ds.name, "Carol plays the cello.");
    expect(none.stage.status).toBe("skipped");
  });
});

// A Nominatim-compatible geocoder on 127.0.0.1 that fails: the stage fails, the run succeeds flagged
let status = 500;
const asked: string[] = [];
const server = createServer((req, res) => {
  asked.push(req.url ?? "");
  res.writeHead(status, { "content-type": "application/json" });
  res.end(status === 200 ? JSON.stringify([{ osm_type: "relation", osm_id: 1, lat: "45.77", lon: "4.88", name: "Villeurbanne", address: { country_code: "fr" } }]) : "{}");
});
let geocoderUrl = "";
beforeAll(async () => {
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  geocoderUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describeEachDriver(
  "resolve_geo, an HTTP geocoder",
  (ctx) => {
    it("a geocoder answering 500 fails the stage; the run succeeds, flagged, and the failed lookup is an inference", async () => {
      const { app } = ctx();
      status = 500;
      const ds = await freshDataset(app);
      const r = await remember(app, ds.name, "The Golden Crust bakery is based in Villeurbanne.");
      expect(r.stage).toMatchObject({ status: "failed", error: expect.stringMatching(/answered HTTP 500/) });
      expect(r.run.status).toBe("succeeded");
      expect(r.run.flagged).toBe(true);
      expect(r.geocodes).toHaveLength(1);
      expect(r.geocodes[0]).toMatchObject({ provider: "nominatim", model: geocoderUrl, error: expect.stringMatching(/HTTP 500/), stage: "resolve_geo" });
      expect(asked.at(-1)).toMatch(/^\/search\?q=Villeurbanne&/);
      const [row] = await app.database.db.select().from(entities).where(and(eq(entities.datasetId, ds.id), eq(entities.name, "Villeurbanne")));
      expect(row?.lat).toBeNull();

      status = 200;
      const ok = await remember(app, ds.name, "Marta is based in Villeurbanne.");
      expect(place(ok.geo, "Villeurbanne")).toMatchObject({ status: "resolved", lat: 45.77, lon: 4.88, country: "FR", geoId: "osm:relation/1" });
      expect(ok.geocodes.map((i) => i.model)).toEqual([geocoderUrl]);
    });
  },
  { env: () => ({ GB_GEOCODER_URL: geocoderUrl }) },
);
