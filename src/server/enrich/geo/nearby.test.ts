import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { callerFor, rejection } from "../../../test/callers";
import { describeEachDriver, freshDataset } from "../../../test/db";
import { LOCAL_CALLER } from "../../auth/caller";
import { entities, inferences } from "../../db/schema";
import { ask } from "../../query/ask";
import { boundingBox } from "../../query/lists/nearby";
import { LIST_NAMES } from "../../query/lists/registry";
import { distanceKm } from "./geocoder";
import { placePhrases } from "./intent";

describe("a question's place phrases", () => {
  it("reads the name after near, around, close to, in the vicinity of, within … of", () => {
    expect(placePhrases("What do I know near Lyon?").near).toEqual(["Lyon"]);
    expect(placePhrases("Anything around Rio de Janeiro or close to the Sugarloaf?").near).toEqual(["Rio de Janeiro", "Sugarloaf"]);
    expect(placePhrases("Near Saint-Étienne, who bakes?").near).toEqual(["Saint-Étienne"]);
    expect(placePhrases("cafés in the vicinity of Villeurbanne").near).toEqual(["Villeurbanne"]);
    expect(placePhrases("who lives within 10 km of New York City").near).toEqual(["New York City"]);
    // a time, or a lower-case word, is no place
    expect(placePhrases("What happened around noon near here?").near).toEqual([]);
    expect(placePhrases("Who did Ana meet in Porto in May?").locative).toEqual(["Porto", "May"]);
  });
});

describe("the nearby list's bounding box", () => {
  const inBox = (b: ReturnType<typeof boundingBox>, p: { lat: number; lon: number }) =>
    p.lat >= b.latMin && p.lat <= b.latMax && (b.lon === null || b.lon.some(([lo, hi]) => p.lon >= lo && p.lon <= hi));

  it("holds every point within the radius, also across the antimeridian, and takes every longitude at a pole", () => {
    for (const c of [
      { lat: 45.76, lon: 4.83, radiusKm: 25 },
      { lat: -16.5, lon: 179.9, radiusKm: 300 },
      { lat: 70, lon: -179.5, radiusKm: 1000 },
      { lat: 0, lon: 0, radiusKm: 12_000 },
    ]) {
      const box = boundingBox(c);
      // points on the circle of the radius, every 10 degrees of bearing
      for (let b = 0; b < 360; b += 10) {
        const d = (c.radiusKm * 0.999) / 6371.0088;
        const [la, lo, br] = [(c.lat * Math.PI) / 180, (c.lon * Math.PI) / 180, (b * Math.PI) / 180];
        const lat2 = Math.asin(Math.sin(la) * Math.cos(d) + Math.cos(la) * Math.sin(d) * Math.cos(br));
        let lon2 = lo + Math.atan2(Math.sin(br) * Math.sin(d) * Math.cos(la), Math.cos(d) - Math.sin(la) * Math.sin(lat2));
        lon2 = ((((lon2 * 180) / Math.PI + 540) % 360) - 180) as number;
        const p = { lat: (lat2 * 180) / Math.PI, lon: lon2 };
        expect(distanceKm(c, p)).toBeLessThanOrEqual(c.radiusKm);
        expect(inBox(box, p), `${JSON.stringify(c)} bearing ${b}`).toBe(true);
      }
    }
    expect(boundingBox({ lat: 89.9, lon: 0, radiusKm: 50 }).lon).toBeNull();
    expect(boundingBox({ lat: 45, lon: 179.9, radiusKm: 100 }).lon).toHaveLength(2);
  });
});

describeEachDriver("detect_geo and nearby_geo", (ctx) => {
  const remember = async (dataset: string, text: string) => {
    const r = await callerFor(ctx().app).remember.submit({ dataset, text, wait: true });
    expect(r.status).toBe("succeeded");
  };
  const stages = async (queryRunId: string) =>
    Object.fromEntries((await callerFor(ctx().app).runs.query.get({ id: queryRunId })).stages.map((s) => [s.name, s.status]));

  it("What do I know near Lyon? finds the bakery remembered in Villeurbanne, about 5 km away; a small radius does not", async () => {
    const { app } = ctx();
    const ds = await freshDataset(app);
    await remember(ds.name, "The Golden Crust bakery is based in Villeurbanne.");
    const api = callerFor(app);
    const r = await api.query.ask({ dataset: ds.name, question: "What do I know near Lyon?" });
    expect(await stages(r.queryRunId)).toMatchObject({ retrieve_graph: "succeeded", detect_geo: "succeeded", nearby_geo: "succeeded", query: "succeeded" });
    const bakery = r.sources.find((s) => /Golden Crust/.test(s.text))!;
    expect(bakery).toBeDefined();
    expect(bakery.nearEntity?.name).toBe("Villeurbanne");
    expect(bakery.distanceKm).toBeGreaterThan(2);
    expect(bakery.distanceKm).toBeLessThan(10);
    expect(r.answer).toMatch(/Golden Crust/);
    expect(r.answer).toMatch(new RegExp(`\\[${bakery.n}\\]`));

    // the receipts: detect_geo's place (Lyon is not in the dataset: the gazetteer's, an inference), nearby_geo's finds
    const outputs = await api.runs.query.outputs({ id: r.queryRunId });
    expect(outputs.map((o) => o.stage)).toEqual(["retrieve_graph", "detect_geo", "nearby_geo", "query"]);
    const detect = outputs.find((o) => o.stage === "detect_geo")!.output as { found: string; near: boolean; place: { name: string; country: string } };
    expect(detect).toMatchObject({ found: "geocoder", near: true, place: { name: "Lyon", country: "FR" } });
    const nearby = outputs.find((o) => o.stage === "nearby_geo")!.output as { radiusKm: number; nearby: { key: string; distanceKm: number }[] };
    expect(nearby.radiusKm).toBe(25);
    expect(nearby.nearby.map((n) => n.key)).toContain(`${bakery.kind}:${bakery.id}`);
    const geocodes = await app.database.db.select().from(inferences).where(and(eq(inferences.runId, r.queryRunId), eq(inferences.task, "geocode")));
    expect(geocodes.map((i) => [i.stage, i.provider])).toEqual([["detect_geo", "gazetteer"]]);

    // within 2 km of Lyon: nothing, and no answer model
    const small = await api.query.ask({ dataset: ds.name, question: "What do I know near Lyon?", radiusKm: 2 });
    expect(small.sources.some((s) => /Golden Crust/.test(s.text))).toBe(false);
    expect(await stages(small.queryRunId)).toMatchObject({ detect_geo: "succeeded", nearby_geo: "succeeded" });

    // a place of the dataset is its own: no geocoder
    const own = await api.query.ask({ dataset: ds.name, question: "What is there around Villeurbanne?" });
    expect(own.sources.find((s) => /Golden Crust/.test(s.text))?.distanceKm).toBe(0);
    const ownDetect = (await api.runs.query.outputs({ id: own.queryRunId })).find((o) => o.stage === "detect_geo")!.output;
    expect(ownDetect).toMatchObject({ found: "dataset", place: { name: "Villeurbanne" } });

    // and so is one it knows by an alias (found by the alias index, not by its name)
    await ctx().database.db.update(entities).set({ aliases: ["La Doua"], aliasKeys: ["la doua"] }).where(and(eq(entities.datasetId, ds.id), eq(entities.nameKey, "villeurbanne")));
    const byAlias = await api.query.ask({ dataset: ds.name, question: "What is there around La Doua?" });
    expect(byAlias.sources.find((s) => /Golden Crust/.test(s.text))?.distanceKm).toBe(0);
    const aliasDetect = (await api.runs.query.outputs({ id: byAlias.queryRunId })).find((o) => o.stage === "detect_geo")!.output;
    expect(aliasDetect).toMatchObject({ found: "dataset", place: { name: "Villeurbanne" } });
  });

  it("a question with no place skips both stages; the eval's ablation of nearby still works", async () => {
    const { app } = ctx();
    const ds = await freshDataset(app);
    await remember(ds.name, "The Golden Crust bakery is based in Villeurbanne. Dana likes rye bread.");
    const r = await callerFor(app).query.ask({ dataset: ds.name, question: "What does Dana like?" });
    expect(await stages(r.queryRunId)).toMatchObject({ detect_geo: "skipped", nearby_geo: "skipped", query: "succeeded" });
    expect(LIST_NAMES).toContain("nearby");
    const ablated = await ask({ app, caller: LOCAL_CALLER, input: { dataset: ds.name, question: "What do I know near Lyon?", limit: 10 }, skipLists: ["nearby"] });
    expect(ablated.sources.some((s) => s.distanceKm !== undefined)).toBe(false);
  });

  it("refuses a bad radiusKm with the field", async () => {
    const { app } = ctx();
    const ds = await freshDataset(app);
    const api = callerFor(app);
    for (const radiusKm of [0, -5, 20_001, Number.NaN]) {
      expect(await rejection(api.query.ask({ dataset: ds.name, question: "What is near Lyon?", radiusKm }))).toMatchObject({ code: "BAD_REQUEST", field: "radiusKm" });
    }
    expect(await rejection(api.query.ask({ dataset: ds.name, question: "What is near Lyon?", radiusKm: "5" as never }))).toMatchObject({ code: "BAD_REQUEST", field: "radiusKm" });
  });

  it("with asOf, the facts of that time near the place", async () => {
    const { app } = ctx();
    const ds = await freshDataset(app);
    await remember(ds.name, "In 2020 Marc moved to Villeurbanne.");
    await remember(ds.name, "In 2023 Marc moved to Berlin.");
    const api = callerFor(app);
    const now = await api.query.ask({ dataset: ds.name, question: "Who lives near Lyon?" });
    expect(now.sources.filter((s) => s.distanceKm !== undefined && /Marc/.test(s.text))).toEqual([]);
    const then = await api.query.ask({ dataset: ds.name, question: "Who lives near Lyon?", asOf: "2021-06-01T00:00:00Z" as never });
    expect(then.sources.find((s) => s.distanceKm !== undefined && /Villeurbanne/.test(s.text))).toBeDefined();
  });
});
