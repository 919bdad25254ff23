import { and, eq } from "drizzle-orm";
import { expect, it } from "vitest";
import { callerFor } from "../../../test/callers";
import { describeEachDriver, freshDataset } from "../../../test/db";
import type { App } from "../../app";
import { texts } from "../../db/schema";
import { fetchSeriesWindow, windowOutput } from "./window";

/** Three quarterly reports of one company, its turnover rising; every text is the test's own. */
const REPORTS = [
  { text: "Quillon Robotics's turnover was 4.2 M EUR. The plant in Aarhus hired two welders.", occurredAt: "2026-03-31T00:00:00Z" },
  { text: "Quillon Robotics's turnover was 4.8 M EUR. A second assembly line opened.", occurredAt: "2026-06-30T00:00:00Z" },
  { text: "Quillon Robotics's turnover was 5.5 M EUR. Exports to Norway doubled.", occurredAt: "2026-09-30T00:00:00Z" },
];

describeEachDriver("series (fetch_series, observe_series, graph.series)", (ctx) => {
  const submit = async (app: App, dataset: string, r: { text: string; occurredAt?: string }, extra: Record<string, unknown> = {}) => {
    const out = await callerFor(app).remember.submit({ dataset, ...r, wait: true, ...extra });
    expect(out).toMatchObject({ status: "succeeded", error: null });
    return out.rememberRunId;
  };
  const stages = async (app: App, id: string) =>
    Object.fromEntries((await callerFor(app).runs.remember.get({ id })).stages.map((s) => [s.name, s.status]));
  const textOf = async (app: App, datasetId: string, runId: string) =>
    (await app.database.db.select({ id: texts.id }).from(texts).where(and(eq(texts.datasetId, datasetId), eq(texts.runId, runId), eq(texts.kind, "text"))))[0]!.id;

  it("fetchSeriesWindow: the members up to the text, in time order (not submission order), with their numbers", async () => {
    const { app } = ctx();
    const ds = await freshDataset(app);
    const off = { series: "quillon-q", options: { enrich: { observeSeries: false } } };
    // submitted out of order: Q3, then Q1, then Q2
    const runs = [await submit(app, ds.name, REPORTS[2]!, off), await submit(app, ds.name, REPORTS[0]!, off), await submit(app, ds.name, REPORTS[1]!, off)];
    const [q3, q1, q2] = await Promise.all(runs.map((r) => textOf(app, ds.id, r)));
    const db = app.database.db;
    const at = (textId: string, size = 10) => fetchSeriesWindow({ db, datasetId: ds.id, seriesKey: "quillon-q", textId, size });

    const all = await at(q3!);
    expect(all.members.map((m) => m.textId)).toEqual([q1, q2, q3]);
    expect(all.members.map((m) => m.position)).toEqual([2, 3, 1]); // positions are submission order
    const turnover = all.members.map((m) => m.facts.find((f) => f.predicate === "has_turnover"));
    expect(turnover.map((f) => [f?.subject, f?.value, f?.unit])).toEqual([
      ["Quillon Robotics", 4_200_000, "EUR"],
      ["Quillon Robotics", 4_800_000, "EUR"],
      ["Quillon Robotics", 5_500_000, "EUR"],
    ]);
    // the window ends at the text being remembered, and keeps the last `size`
    expect((await at(q2!)).members.map((m) => m.textId)).toEqual([q1, q2]);
    expect((await at(q3!, 2)).members.map((m) => m.textId)).toEqual([q2, q3]);
    expect(windowOutput(await at(q2!))).toMatchObject({
      seriesKey: "quillon-q",
      members: [
        { textId: q1, occurredAt: "2026-03-31T00:00:00.000Z", values: ["Quillon Robotics has_turnover 4.2 M EUR"] },
        { textId: q2, occurredAt: "2026-06-30T00:00:00.000Z", values: ["Quillon Robotics has_turnover 4.8 M EUR"] },
      ],
    });
    // the series view: three points in time order
    const view = await callerFor(app).graph.series({ dataset: ds.name, key: "quillon-q" });
    expect(view.members.map((m) => m.textId)).toEqual([q1, q2, q3]);
    const line = view.measures.find((m) => m.predicate === "has_turnover");
    expect(line).toMatchObject({ measure: "Quillon Robotics has_turnover (EUR)", unit: "EUR" });
    expect(line!.points.map((p) => [p.textId, p.time.toISOString().slice(0, 10), p.value])).toEqual([
      [q1, "2026-03-31", 4_200_000],
      [q2, "2026-06-30", 4_800_000],
      [q3, "2026-09-30", 5_500_000],
    ]);
    expect(view.observations).toEqual([]);
    expect((await callerFor(app).graph.seriesKeys({ dataset: ds.name })).items).toEqual([{ key: "quillon-q", members: 3, lastAt: new Date("2026-09-30T00:00:00Z") }]);
  });

  it("three reports of a rising value: observe_series writes an observation that query.ask finds", async () => {
    const { app } = ctx();
    const ds = await freshDataset(app);
    const api = callerFor(app);
    const runs: string[] = [];
    for (const r of REPORTS) runs.push(await submit(app, ds.name, r, { series: "quillon-q" }));
    const first = await stages(app, runs[0]!);
    expect(first).toMatchObject({ fetch_series: "succeeded", observe_series: "skipped" }); // one member: nothing to compare
    const last = await stages(app, runs[2]!);
    expect(last).toMatchObject({ fetch_series: "succeeded", observe_series: "succeeded" });

    const fetched = await api.runs.remember.outputs({ id: runs[2]!, stage: "fetch_series" });
    expect(JSON.stringify(fetched)).toContain("Quillon Robotics has_turnover 5.5 M EUR");
    const observed = JSON.stringify(await api.runs.remember.outputs({ id: runs[2]!, stage: "observe_series" }));
    const sentence = "Quillon Robotics's turnover rose from 4.2 M EUR to 5.5 M EUR between 2026-03-31 and 2026-09-30.";
    expect(observed).toContain(sentence);

    const view = await api.graph.series({ dataset: ds.name, key: "quillon-q" });
    const obs = view.observations.find((o) => o.content.startsWith(sentence));
    expect(obs, JSON.stringify(view.observations)).toBeDefined();
    expect(obs!.textIds).toEqual(view.members.map((m) => m.textId));
    // the observation is a text of kind observation, with its provenance
    const [row] = await app.database.db.select().from(texts).where(and(eq(texts.datasetId, ds.id), eq(texts.id, obs!.textId)));
    expect(row).toMatchObject({ kind: "observation", seriesKey: null, derivedFrom: { stage: "observe_series", textIds: obs!.textIds } });

    const answer = await api.query.ask({ dataset: ds.name, question: "How did the turnover of Quillon Robotics rise?" });
    const cited = answer.sources.filter((s) => s.source.textId === obs!.textId);
    expect(cited.length, JSON.stringify(answer.sources.map((s) => s.text))).toBeGreaterThan(0);
  });

  it("a person's observations go with their texts when they are forgotten (subjects.purge by userId)", async () => {
    const { app } = ctx();
    const ds = await freshDataset(app);
    for (const r of REPORTS) await submit(app, ds.name, r, { series: "quillon-p", userId: "u-quillon" });
    const all = () => app.database.db.select({ kind: texts.kind, userId: texts.userId }).from(texts).where(eq(texts.datasetId, ds.id));
    const before = await all();
    expect(before.filter((t) => t.kind === "observation").length).toBeGreaterThan(0);
    // an observation belongs to the person whose text it was drawn from
    expect(before.every((t) => t.userId === "u-quillon")).toBe(true);
    await callerFor(app).subjects.purge({ dataset: ds.name, userId: "u-quillon" });
    expect(await all()).toEqual([]);
  });

  it("options.enrich.observeSeries false skips both stages; a text without a series skips both", async () => {
    const { app } = ctx();
    const ds = await freshDataset(app);
    await submit(app, ds.name, REPORTS[0]!, { series: "quillon-off" });
    const off = await submit(app, ds.name, REPORTS[1]!, { series: "quillon-off", options: { enrich: { observeSeries: false } } });
    expect(await stages(app, off)).toMatchObject({ store_series: "succeeded", fetch_series: "skipped", observe_series: "skipped" });
    const alone = await submit(app, ds.name, REPORTS[2]!);
    expect(await stages(app, alone)).toMatchObject({ fetch_series: "skipped", observe_series: "skipped" });
  });
});
