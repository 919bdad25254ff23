import { and, eq, inArray, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { QueryStages } from "../../lib/stages";
import { callerFor, rejection } from "../../test/callers";
import { describeEachDriver, freshDataset } from "../../test/db";
import { chunks, facts, inferences, texts } from "../db/schema";
import { names } from "../pipeline";
import { queryPipeline } from "./pipeline";
import { LOCAL_CALLER } from "../auth/caller";
import { ask } from "./ask";
import { LIST_NAMES } from "./lists/registry";
import { NO_INFORMATION } from "./schemas";

describe("the query pipeline", () => {
  it("has exactly the stages of its run log, in order (TestPipelineStagesAreTheRunLogs)", () => {
    expect(names(queryPipeline)).toEqual(QueryStages.map((s) => s.name));
  });
});

describeEachDriver("query", (ctx) => {
  const remember = async (dataset: string, text: string, extra: Record<string, unknown> = {}) => {
    const r = await callerFor(ctx().app).remember.submit({ dataset, text, wait: true, ...extra });
    expect(r.status).toBe("succeeded");
  };

  /** The turns of one chat, in order: series "chat-1", source ids t1, t2, … */
  const rememberChat = async (dataset: string, turns: string[]) => {
    for (const [i, text] of turns.entries()) await remember(dataset, text, { series: "chat-1", source: { kind: "chat", id: `t${i + 1}` } });
  };

  /** Each source's rank in one list for the question, keyed `kind:source id` (a fact and its text's summary both count), and how many the list found. */
  const listRanks = async (dataset: string, question: string, list: string) => {
    const { app } = ctx();
    const r = await ask({ app, caller: LOCAL_CALLER, input: { dataset, question, limit: 50 } });
    const outputs = await callerFor(app).runs.query.outputs({ id: r.queryRunId });
    const out = outputs.find((x) => x.stage === "retrieve_graph")!.output as { lists: Record<string, number>; retrieved: { kind: string; textId: string; ranks: Record<string, number> }[] };
    const textIds = [...new Set(out.retrieved.map((c) => c.textId))];
    const rows = textIds.length ? await app.database.db.select({ id: texts.id, source: texts.source }).from(texts).where(inArray(texts.id, textIds)) : [];
    const idOf = new Map(rows.map((t) => [t.id, t.source.id]));
    const ranks = new Map<string, number>();
    for (const c of out.retrieved) if (c.ranks[list]) ranks.set(`${c.kind}:${idOf.get(c.textId)}`, c.ranks[list]!);
    return { ranks, count: out.lists[list] };
  };

  /** Each text's rank in chunks_text for the question, by its source id. */
  const chunksTextRanks = async (dataset: string, question: string) => {
    const { ranks } = await listRanks(dataset, question, "chunks_text");
    return new Map([...ranks].filter(([key]) => key.startsWith("summary:")).map(([key, rank]) => [key.slice("summary:".length), rank]));
  };

  it("answers from the current facts and, with asOf, from the facts of that time", async () => {
    const { app } = ctx();
    const ds = await freshDataset(app);
    await remember(ds.name, "Alice lives in Paris.");
    await remember(ds.name, "In 2024 Alice moved to Berlin.");
    const api = callerFor(app);
    const now = await api.query.ask({ dataset: ds.name, question: "Where does Alice live?" });
    expect(now.answer).toMatch(/Berlin/);
    expect(now.answer).not.toMatch(/Paris/);
    expect(now.sources.some((s) => s.kind === "fact" && /Paris/.test(s.text))).toBe(false);
    const then = await api.query.ask({ dataset: ds.name, question: "Where does Alice live?", asOf: "2023-06-01T00:00:00Z" as never });
    expect(then.answer).toMatch(/Paris/);
    expect(then.answer).not.toMatch(/Berlin/);
    const paris = then.sources.find((s) => /Paris/.test(s.text))!;
    expect(paris.invalidAt?.toISOString().slice(0, 10)).toBe("2024-01-01");
  });

  it("cites real sources: every [n] in the answer is a source, and every source exists", async () => {
    const { app } = ctx();
    const ds = await freshDataset(app);
    await remember(ds.name, "Bob works at Acme. Acme is based in Lyon.", { source: { kind: "chat", id: "m-1", speaker: "Bob" } });
    const r = await callerFor(app).query.ask({ dataset: ds.name, question: "Where does Bob work?" });
    const cited = [...r.answer.matchAll(/\[(\d+)\]/g)].map((m) => Number(m[1]));
    expect(cited.length).toBeGreaterThan(0);
    for (const n of cited) expect(r.sources.map((s) => s.n)).toContain(n);
    expect(r.answer).toMatch(/Acme/);
    const db = app.database.db;
    for (const s of r.sources) {
      expect(s.source).toMatchObject({ kind: "chat", id: "m-1", speaker: "Bob" });
      const table = s.kind === "fact" ? facts : chunks;
      const found = await db.select({ id: table.id }).from(table).where(and(eq(table.datasetId, ds.id), eq(table.id, s.id)));
      expect(found).toHaveLength(1);
      expect(s.score).toBeGreaterThan(0);
    }
    expect(r.sources.map((s) => s.n)).toEqual(r.sources.map((_, i) => i + 1));
  });

  it("stops with the fixed answer when nothing is known, and asks no model", async () => {
    const { app } = ctx();
    const ds = await freshDataset(app);
    const api = callerFor(app);
    const empty = await api.query.ask({ dataset: ds.name, question: "Where does Alice live?" });
    expect(empty).toMatchObject({ answer: NO_INFORMATION, sources: [] });
    const run = await api.runs.query.get({ id: empty.queryRunId });
    expect(run.status).toBe("succeeded");
    expect(Object.fromEntries(run.stages.map((s) => [s.name, s.status]))).toEqual({
      // builtin embeddings are not semantic: no question embedding
      embed_question: "skipped",
      retrieve_graph: "succeeded",
      detect_geo: "skipped",
      nearby_geo: "skipped",
      query: "skipped",
    });
    const rows = await app.database.db.select().from(inferences).where(eq(inferences.runId, empty.queryRunId));
    expect(rows).toEqual([]);

    // a known dataset, a question about something else: still no answer model
    await remember(ds.name, "Carol plays the cello.");
    const other = await api.query.ask({ dataset: ds.name, question: "zxqv wvut?" });
    expect(other).toMatchObject({ answer: NO_INFORMATION, sources: [] });
    const tasks = (await app.database.db.select().from(inferences).where(eq(inferences.runId, other.queryRunId))).map((i) => i.task);
    expect(tasks).not.toContain("answer");
  });

  it("keeps receipts: what was retrieved and what was given to the model", async () => {
    const { app } = ctx();
    const ds = await freshDataset(app);
    await remember(ds.name, "Dana teaches math in Oslo. Dana likes skiing.");
    const api = callerFor(app);
    const r = await api.query.ask({ dataset: ds.name, question: "What does Dana like?", limit: 2 });
    expect(r.sources.length).toBeLessThanOrEqual(2);
    const outputs = await api.runs.query.outputs({ id: r.queryRunId });
    expect(outputs.map((o) => o.stage)).toEqual(["retrieve_graph", "query"]);
    const retrieved = (outputs[0]!.output as { retrieved: { key: string; ranks: Record<string, number> }[] }).retrieved;
    const given = (outputs[1]!.output as { given: { n: number; key: string }[] }).given;
    expect(retrieved.length).toBeGreaterThanOrEqual(given.length);
    expect(given.map((g) => g.n)).toEqual(r.sources.map((s) => s.n));
    expect(given.map((g) => g.key)).toEqual(r.sources.map((s) => `${s.kind}:${s.id}`));
    expect(Object.keys(retrieved[0]!.ranks).length).toBeGreaterThan(0);
    const run = await api.runs.query.get({ id: r.queryRunId });
    expect(run.stages.find((s) => s.name === "query")?.inferenceIds.length).toBe(1);
    expect(run.params).toMatchObject({ question: "What does Dana like?", limit: 2 });
  });

  it("leaves the lists named in skipLists out of the fusion (the eval's ablation), and says so in the receipt", async () => {
    const { app } = ctx();
    const ds = await freshDataset(app);
    await remember(ds.name, "Dana teaches math in Oslo. Dana likes skiing.");
    const input = { dataset: ds.name, question: "What does Dana like?", limit: 10 };
    const all = await ask({ app, caller: LOCAL_CALLER, input });
    expect(all.sources.length).toBeGreaterThan(0);
    const rankedBy = async (id: string) => {
      const outputs = await callerFor(app).runs.query.outputs({ id });
      const o = outputs.find((x) => x.stage === "retrieve_graph")!.output as { skipped?: string[]; retrieved: { ranks: Record<string, number> }[] };
      return { skipped: o.skipped, lists: new Set(o.retrieved.flatMap((r) => Object.keys(r.ranks))) };
    };
    const full = await rankedBy(all.queryRunId);
    expect(full.skipped).toBeUndefined();
    expect(full.lists.has("facts_text")).toBe(true);
    const without = await ask({ app, caller: LOCAL_CALLER, input, skipLists: ["facts_text"] });
    const ablated = await rankedBy(without.queryRunId);
    expect(ablated.skipped).toEqual(["facts_text"]);
    expect(ablated.lists.has("facts_text")).toBe(false);
    expect(ablated.lists.size).toBeGreaterThan(0);
    const none = await ask({ app, caller: LOCAL_CALLER, input, skipLists: LIST_NAMES });
    expect(none.sources).toEqual([]);
    expect(none.answer).toBe(NO_INFORMATION);
  });

  it("finds a turn by the words of its neighbours in the series (chunks_text), and only within two places", async () => {
    const { app } = ctx();
    const ds = await freshDataset(app);
    const turns = [
      "Did you ever finish that pottery course at the community centre?",
      "Yes! I came home with a lopsided bowl and two mugs.",
      "Ha, I want to see them.",
      "I will bring them on Sunday.",
      "We could go hiking after.",
    ];
    await rememberChat(ds.name, turns);
    // the same words once, in a text of no series
    await remember(ds.name, "The pottery course flyer was on the fridge.", { source: { kind: "note", id: "flyer" } });
    const byText = await chunksTextRanks(ds.name, "What did I make at the pottery course?");
    // the question's words are in t1 and the flyer; t2 (the answer) and t3 are found through t1
    expect(byText.has("t1")).toBe(true);
    expect(byText.has("t2")).toBe(true);
    expect(byText.has("t3")).toBe(true);
    // three places on, nothing of the question
    expect(byText.has("t4")).toBe(false);
    expect(byText.has("t5")).toBe(false);
    expect(byText.has("flyer")).toBe(true);
    // what holds the words outranks what is next to them; the next turn outranks the one two on
    expect(byText.get("t1")!).toBeLessThan(byText.get("t2")!);
    expect(byText.get("t2")!).toBeLessThan(byText.get("t3")!);
  });

  it("lists the texts around the best full-text finds in their series (series_around): the one after, then the one before, each once", async () => {
    const { app } = ctx();
    const ds = await freshDataset(app);
    const turns = [
      "Morning! Coffee first.",
      "So what did you call him in the end?",
      "Pepper, after the colour of his coat. The shelter said the terrier is two years old.",
      "That suits him.",
      "See you at the park later.",
    ];
    await rememberChat(ds.name, turns);
    const { ranks, count } = await listRanks(ds.name, "How old is the terrier from the shelter?", "series_around");
    const around = [...ranks].map(([key, rank]) => ({ id: key.replace(/^summary:/, ""), rank }));
    const rankOf = new Map(around.map((a) => [a.id, a.rank]));
    // t3 holds the question's words: the turn after it first, then the turn before it (the
    // question it answers: "what did you call him?" is what "Pepper" means)
    expect(rankOf.get("t4")).toBe(1);
    expect(rankOf.get("t2")).toBe(2);
    // each text once, whichever finds it is next to: as many in the list as texts it ranks
    expect(count).toBe(around.length);
    expect(new Set(around.map((a) => a.rank)).size).toBe(around.length);
  });

  it("lists what was said in the time a question names, and the facts that held from then (period)", async () => {
    const { app } = ctx();
    const ds = await freshDataset(app);
    const days = ["2024-04-28", "2024-05-01", "2024-05-03", "2024-05-06", "2024-05-09"];
    // Ana is in every text: her name alone tells none of them apart, the day does
    for (const [i, day] of days.entries()) await remember(ds.name, `Ana ${["painted the shed", "fixed the fence", "planted beans", "cleaned gutters", "washed the car"][i]}.`, { source: { kind: "note", id: day }, occurredAt: `${day}T10:00:00Z` });
    // said the day after, about the day before: its fact holds from 3 May
    await remember(ds.name, "Yesterday Ana went bowling with her cousins.", { source: { kind: "note", id: "bowling" }, occurredAt: "2024-05-04T09:00:00Z" });
    const { ranks } = await listRanks(ds.name, "What did Ana do on 3 May 2024?", "period");
    expect(ranks.has("summary:2024-05-03")).toBe(true);
    expect(ranks.has("fact:bowling")).toBe(true);
    // nothing said on another day, nor the bowling text itself (said on the 4th)
    for (const day of days.filter((d) => d !== "2024-05-03")) expect(ranks.has(`summary:${day}`)).toBe(false);
    expect(ranks.has("summary:bowling")).toBe(false);
    // a question that names no time: nothing
    const none = await listRanks(ds.name, "What did Ana do?", "period");
    expect(none.count).toBe(0);
    // a month holds them all but the first
    const may = await listRanks(ds.name, "What did Ana do in May 2024?", "period");
    expect([...may.ranks.keys()].filter((k) => k.startsWith("summary:")).sort()).toEqual(["summary:2024-05-01", "summary:2024-05-03", "summary:2024-05-06", "summary:2024-05-09", "summary:bowling"]);
  });

  it("answers a question whose time is out of any calendar's range (no period, no error)", async () => {
    const { app } = ctx();
    const ds = await freshDataset(app);
    await remember(ds.name, "Ana planted beans.", { source: { kind: "note", id: "beans" }, occurredAt: "2024-05-03T10:00:00Z" });
    for (const question of ["What did Ana do 99999999 days ago?", "What will Ana do in 1000000 weeks?", "What did Ana plant on 3 May 99999999?"]) {
      const r = await callerFor(app).query.ask({ dataset: ds.name, question });
      expect(r.sources.map((s) => s.source.id)).toContain("beans");
    }
  });

  it("reads nothing of a crowded period (more texts than it reads whole)", async () => {
    const { app } = ctx();
    const ds = await freshDataset(app);
    await remember(ds.name, "Ana planted beans.", { source: { kind: "note", id: "beans" }, occurredAt: "2024-05-03T10:00:00Z" });
    expect((await listRanks(ds.name, "What did Ana do on 3 May 2024?", "period")).count).toBe(1);
    // five hundred more texts said that day (copies of the first, made in SQL: remembering each would take minutes)
    const db = app.database.db;
    await db.execute(sql`INSERT INTO gb_texts (dataset_id, id, run_id, content, source, occurred_at, created_at)
      SELECT dataset_id, gen_random_uuid(), run_id, content, jsonb_build_object('kind', 'note', 'id', 'copy-' || i), occurred_at, created_at
      FROM gb_texts CROSS JOIN generate_series(1, 500) i WHERE dataset_id = (SELECT id FROM datasets WHERE name = ${ds.name})`);
    expect((await listRanks(ds.name, "What did Ana do on 3 May 2024?", "period")).count).toBe(0);
  });

  it("reads a turn with its neighbours as one document: a window that holds more of the question ranks first", async () => {
    const { app } = ctx();
    const ds = await freshDataset(app);
    // every text three words; "violin" and "kayak" in three texts each, so they weigh alike
    const s1 = ["red lamp sits", "violin lesson today", "kayak trip tomorrow"];
    const s2 = ["blue chair stands", "violin practice tonight", "violin recital soon"];
    for (const [i, text] of s1.entries()) await remember(ds.name, text, { series: "s1", source: { kind: "chat", id: `x${i}` } });
    for (const [i, text] of s2.entries()) await remember(ds.name, text, { series: "s2", source: { kind: "chat", id: `y${i}` } });
    await remember(ds.name, "kayak shop closed", { source: { kind: "note", id: "n1" } });
    await remember(ds.name, "kayak paddle broke", { source: { kind: "note", id: "n2" } });
    const byText = await chunksTextRanks(ds.name, "violin kayak");
    // x1's window holds both words, y1's holds one of them twice: a term counts once, saturated,
    // so covering the question beats repeating part of it (a score spread from neighbours ties them,
    // and y1, the newer, came first)
    expect(byText.get("x1")).toBeDefined();
    expect(byText.get("y1")).toBeDefined();
    expect(byText.get("x1")!).toBeLessThan(byText.get("y1")!);
  });

  it("finds a text by the kind of what it names (broader words), though no text says the kind", async () => {
    const { app } = ctx();
    const ds = await freshDataset(app);
    await remember(ds.name, "Omar practises the cello every evening.", { source: { kind: "note", id: "cello" } });
    await remember(ds.name, "Omar repaints the harbour crane every evening.", { source: { kind: "note", id: "crane" } });
    // "instrument" is in no text: a term only through "cello"'s broader words (without them, the
    // newer text would come first on "Omar" alone)
    const byText = await chunksTextRanks(ds.name, "Which instrument does Omar have?");
    expect(byText.get("cello")).toBe(1);
    expect(byText.get("crane") ?? Infinity).toBeGreaterThan(1);
  });

  it('reads words joined by "/" as words, in texts and in questions (the parser took "jazz/blues" for one file path)', async () => {
    const { app } = ctx();
    const ds = await freshDataset(app);
    await remember(ds.name, "Omar plays in a jazz/blues trio on Fridays.", { source: { kind: "note", id: "trio" } });
    await remember(ds.name, "Omar keeps the harbour office tidy.", { source: { kind: "note", id: "office" } });
    // a word of the pair in the question finds the text; a pair in the question finds a text with the pair the other way round
    expect((await chunksTextRanks(ds.name, "Which blues band is Omar in?")).get("trio")).toBe(1);
    await remember(ds.name, "The harbour/dock crew starts at six.", { source: { kind: "note", id: "crew" } });
    const byPair = await chunksTextRanks(ds.name, "Who works at the dock/harbour?");
    expect(byPair.get("crew")).toBe(1);
  });

  it("puts first what was said in the period the question names (the text's occurredAt)", async () => {
    const { app } = ctx();
    const ds = await freshDataset(app);
    const said = [
      ["2024-03-09T10:00:00Z", "Ana swam in the lake."],
      ["2024-05-11T10:00:00Z", "Ana fished in the lake."],
      ["2024-07-20T10:00:00Z", "Ana rowed on the lake."],
    ] as const;
    for (const [i, [occurredAt, text]] of said.entries()) await remember(ds.name, text, { occurredAt, source: { kind: "chat", id: `d${i}` } });
    const top = async (question: string) => (await ask({ app, caller: LOCAL_CALLER, input: { dataset: ds.name, question, limit: 3 } })).sources[0]?.source.id;
    // the same lists find all three alike: the period decides
    expect(await top("What did Ana do at the lake in May 2024?")).toBe("d1");
    expect(await top("What did Ana do at the lake in July 2024?")).toBe("d2");
    expect(await top("What did Ana do at the lake on 9 March 2024?")).toBe("d0");
  });

  it("rejects bad input with the field, and makes no run", async () => {
    const { app } = ctx();
    const ds = await freshDataset(app);
    const api = callerFor(app);
    expect(await rejection(api.query.ask({ dataset: ds.name, question: " " }))).toMatchObject({ code: "BAD_REQUEST", field: "question" });
    expect(await rejection(api.query.ask({ dataset: ds.name, question: "q", limit: 0 }))).toMatchObject({ code: "BAD_REQUEST", field: "limit" });
    expect(await rejection(api.query.ask({ dataset: "nope-nope", question: "q" }))).toMatchObject({ code: "NOT_FOUND" });
    // `session` is replaced by `scope`: refused with a note saying so, not ignored
    expect(await rejection(api.query.ask({ dataset: ds.name, question: "q", session: "chat-1" }))).toMatchObject({
      code: "BAD_REQUEST",
      field: "session",
      message: expect.stringContaining("is replaced by `scope`"),
    });
    expect(await rejection(api.query.ask({ dataset: ds.name, question: "q", scope: { userId: "u", channelId: "a b" } }))).toMatchObject({
      code: "BAD_REQUEST",
      field: "scope.channelId",
    });
    expect((await api.runs.query.list({ dataset: ds.name })).items).toEqual([]);
  });

  it("a scope's short-term memory joins the query stage, and its output says which keys", async () => {
    const { app } = ctx();
    const ds = await freshDataset(app);
    const api = callerFor(app);
    await remember(ds.name, "Dana teaches math in Oslo.");
    const scope = { userId: "u-dana", channelId: "c1" };
    await api.stm.capture({ dataset: ds.name, scope, messages: [{ role: "user", content: "I asked about Dana earlier" }] });
    const r = await api.query.ask({ dataset: ds.name, question: "Where does Dana teach?", scope });
    const outputs = await api.runs.query.outputs({ id: r.queryRunId, stage: "query" });
    expect(outputs[0]?.output).toMatchObject({ shortTerm: { keys: ["shortterm:user:u-dana:c1"], chars: expect.any(Number) } });
    expect((await api.runs.query.get({ id: r.queryRunId })).params).toMatchObject({ scope });
    // without a scope, no short-term memory
    const plain = await api.query.ask({ dataset: ds.name, question: "Where does Dana teach?" });
    expect((await api.runs.query.outputs({ id: plain.queryRunId, stage: "query" }))[0]?.output).not.toHaveProperty("shortTerm");
    // an empty dataset with short-term memory: the query stage still runs (the memory may answer)
    const empty = await freshDataset(app);
    await api.stm.capture({ dataset: empty.name, scope, messages: [{ role: "user", content: "hello" }] });
    const e = await api.query.ask({ dataset: empty.name, question: "What did I say?", scope });
    expect((await api.runs.query.get({ id: e.queryRunId })).stages.find((s: { name: string }) => s.name === "query")).toMatchObject({ status: "succeeded" });
  });

  it("answers 50 concurrent queries while a remember run is in progress", async () => {
    const { app } = ctx();
    const ds = await freshDataset(app);
    await remember(ds.name, "Erin lives in Quito. Erin works at Globex.");
    const api = callerFor(app);
    const long = Array.from({ length: 200 }, (_, i) => `Visitor ${i} from Quito met Erin at the Globex office.`).join(" ");
    const pending = await api.remember.submit({ dataset: ds.name, text: long });
    const run = () => api.remember.get({ id: pending.rememberRunId });
    // claimed within a poll or two; the bound only keeps a broken queue from hanging the test
    let before = await run();
    for (const end = Date.now() + 30_000; before.status === "queued" && Date.now() < end; before = await run()) {
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(before.status).toBe("started");
    let lastAnswered = 0;
    const asks = Array.from({ length: 50 }, () =>
      api.query.ask({ dataset: ds.name, question: "Where does Erin live?" }).then((a) => {
        lastAnswered = Date.now();
        return a;
      }),
    );
    const answers = await Promise.all(asks);
    expect(answers.every((a) => /Quito/.test(a.answer))).toBe(true);
    const runs = await api.runs.query.list({ dataset: ds.name, limit: 100 });
    expect(runs.counts.succeeded).toBe(50);
    // and the run the queries overlapped ends well, every chunk stored
    expect((await app.remember.waitFor(pending.rememberRunId, 60_000)).status).toBe("succeeded");
    const after = await run();
    // started before the first query was sent (above) and finished after the last was answered:
    // in progress while they all ran (a query answered in one statement no longer leaves a read
    // made after sending them room to come back before the last answer, on PGlite's one queue)
    expect(after.finishedAt!.getTime()).toBeGreaterThan(lastAnswered);
    expect(after.progress?.chunksTotal).toBeGreaterThan(1);
    expect(after.progress?.chunksDone).toBe(after.progress?.chunksTotal);
  });
});
