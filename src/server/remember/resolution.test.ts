import { and, eq, isNull } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { callerFor } from "../../test/callers";
import { describeEachDriver, freshDataset } from "../../test/db";
import { type ChatRequestBody, type ChatValue, type FakeOpenAI, startFakeOpenAI } from "../../test/fake-openai";
import type { App } from "../app";
import { entities, facts } from "../db/schema";

/*
 * Entity resolution and superseding at the scale where they used to fail: a move into a town with
 * hundreds of current facts, and names a digit or a surname apart. Builtin models, then the
 * openai provider against a loopback server; both drivers.
 */

const FIRST = ["Alice", "Bruno", "Clara", "Daniel", "Elena", "Felix", "Greta", "Hugo", "Irene", "Jonas", "Karla", "Lucas", "Marta", "Nico", "Olga", "Pablo"];
const LAST = ["Keller", "Dubois", "Novak", "Ferreira", "Okafor", "Tanaka", "Petrov", "Schmidt", "Rossi", "Jansen", "Haddad", "Nguyen", "Larsen", "Costa", "Weber"];

async function current(app: App, datasetId: string) {
  const rows = await app.database.db
    .select({ subjectId: facts.subjectId, predicate: facts.predicate, objectId: facts.objectId, sentence: facts.sentence, invalidAt: facts.invalidAt })
    .from(facts)
    .where(and(eq(facts.datasetId, datasetId), isNull(facts.expiredAt)));
  const named = await app.database.db.select({ id: entities.id, name: entities.name }).from(entities).where(eq(entities.datasetId, datasetId));
  const name = new Map(named.map((e) => [e.id, e.name]));
  return {
    entities: named.map((e) => e.name).sort(),
    facts: rows.map((f) => `${name.get(f.subjectId)} ${f.predicate} ${f.objectId ? name.get(f.objectId) : "?"}`).sort(),
  };
}

describeEachDriver("resolution", (ctx) => {
  const remember = async (dataset: string, text: string) => {
    const r = await callerFor(ctx().app).remember.submit({ dataset, text, wait: true });
    expect(r).toMatchObject({ status: "succeeded", error: null });
    return r.rememberRunId;
  };

  it("a person who moves into a busy town retires their own old fact, however many facts the town has", async () => {
    const { app } = ctx();
    const ds = await freshDataset(app);
    await remember(ds.name, "Alice Moreau lives in Paris.");
    // 240 people in Lyon, told after Alice's fact: all newer, all about the town she moves to
    const crowd = FIRST.flatMap((f) => LAST.map((l) => `${f} ${l} lives in Lyon.`));
    await remember(ds.name, crowd.join(" "));
    const before = await current(app, ds.id);
    expect(before.facts.filter((f) => f.endsWith(" lives_in Lyon"))).toHaveLength(240);

    const moved = await remember(ds.name, "Alice Moreau moved to Lyon in March 2024.");
    const after = await current(app, ds.id);
    expect(after.facts.filter((f) => f.startsWith("Alice Moreau "))).toEqual(["Alice Moreau lives_in Lyon"]);
    expect(after.facts).toHaveLength(241);
    const changes = await callerFor(app).runs.remember.changes({ id: moved });
    expect(changes.factsInvalidated.map((f) => f.sentence)).toEqual(["Alice Moreau lives in Paris."]);
    expect(changes.factsInvalidated[0]!.invalidAt?.toISOString().slice(0, 10)).toBe("2024-03-01");
    // and nobody else's
    expect(after.entities.filter((e) => e.startsWith("Alice "))).toEqual(["Alice Costa", "Alice Dubois", "Alice Ferreira", "Alice Haddad", "Alice Jansen", "Alice Keller", "Alice Larsen", "Alice Moreau", "Alice Nguyen", "Alice Novak", "Alice Okafor", "Alice Petrov", "Alice Rossi", "Alice Schmidt", "Alice Tanaka", "Alice Weber"]);
  });

  it("names a digit apart are two entities, each keeping its facts", async () => {
    const { app } = ctx();
    const ds = await freshDataset(app);
    await remember(ds.name, "Person11 lives in Paris.");
    await remember(ds.name, "Person111 lives in Lyon.");
    await remember(ds.name, "Worker3 works at Acme.");
    await remember(ds.name, "Worker8 works at Globex.");
    const now = await current(app, ds.id);
    expect(now.entities).toEqual(["Acme", "Globex", "Lyon", "Paris", "person11", "person111", "worker3", "worker8"]);
    expect(now.facts).toEqual(["person11 lives_in Paris", "person111 lives_in Lyon", "worker3 works_at Acme", "worker8 works_at Globex"]);
  });

  it("two people who share a first name are two, and the same name is the same person", async () => {
    const { app } = ctx();
    const ds = await freshDataset(app);
    await remember(ds.name, "Alice Moreau lives in Paris.");
    await remember(ds.name, "Alice Dupont lives in Lyon.");
    await remember(ds.name, "Alice Moreau works at Blue Bakery.");
    const now = await current(app, ds.id);
    expect(now.entities).toEqual(["Alice Dupont", "Alice Moreau", "Blue Bakery", "Lyon", "Paris"]);
    expect(now.facts).toEqual(["Alice Dupont lives_in Lyon", "Alice Moreau lives_in Paris", "Alice Moreau works_at Blue Bakery"]);
  });
});

/** The openai provider's model: one person per text ("<Name> lives in <Town>."), resolutions scripted. */
let fake: FakeOpenAI;
let resolution: (body: string) => ChatValue;
const task = (body: ChatRequestBody) => (body.response_format as { json_schema?: { name?: string } } | undefined)?.json_schema?.name ?? "";
const userText = (body: ChatRequestBody) => String((body.messages as { content: string }[] | undefined)?.at(-1)?.content ?? "");

function personGraph(text: string) {
  const [, name, town] = /Text:\n(\S+) lives in (\S+)\./.exec(text) ?? [];
  if (!name || !town) throw new Error(`unexpected text: ${text}`);
  return {
    entities: [
      { name, type: "person", aliases: [] },
      { name: town, type: "place", aliases: [] },
    ],
    facts: [{ subject: name, predicate: "lives_in", object: town, objectIsEntity: true, sentence: `${name} lives in ${town}.`, validAt: null, invalidAt: null }],
  };
}

beforeAll(async () => {
  fake = await startFakeOpenAI({
    chat: (body) => {
      const answers: Record<string, () => ChatValue> = {
        complexity: () => ({ content: { complexity: "simple", chunk: false, reason: "one sentence" } }),
        graph: () => ({ content: personGraph(userText(body)) }),
        summary: () => ({ content: { summary: userText(body) } }),
        resolution: () => resolution(userText(body)),
      };
      return (answers[task(body)] ?? (() => ({ status: 400 })))();
    },
  });
});
afterAll(() => fake.close());

describeEachDriver(
  "resolution with the openai provider",
  (ctx) => {
    const remember = async (dataset: string, text: string) => {
      const r = await callerFor(ctx().app).remember.submit({ dataset, text, wait: true });
      expect(r).toMatchObject({ status: "succeeded", error: null });
    };
    const resolutions = () => fake.requests.filter((r) => task(r.body as ChatRequestBody) === "resolution").map((r) => userText(r.body as ChatRequestBody));

    it("asks the model about a name one digit longer, and keeps two entities when it says they differ", async () => {
      const { app } = ctx();
      const ds = await freshDataset(app);
      resolution = () => ({ content: { entities: [{ n: 0, match: null }], facts: [] } });
      const before = resolutions().length;
      await remember(ds.name, "Person11 lives in Paris.");
      await remember(ds.name, "Person111 lives in Lyon.");
      const asked = resolutions().slice(before);
      expect(asked).toHaveLength(1);
      expect(asked[0]).toMatch(/"name":"Person111".*"candidates":\[.*"name":"Person11"/);
      const now = await current(app, ds.id);
      expect(now.entities).toEqual(["Lyon", "Paris", "Person11", "Person111"]);
      expect(now.facts).toEqual(["Person11 lives_in Paris", "Person111 lives_in Lyon"]);
    });

    it("merges a similar name only when the model says it is the same", async () => {
      const { app } = ctx();
      const ds = await freshDataset(app);
      await remember(ds.name, "Person22 lives in Paris.");
      // the model matches it to its candidate; the Lyon fact then contradicts Paris
      resolution = (text) => {
        const ref = /"ref":"(E\d+)","name":"Person22"/.exec(text)?.[1] ?? null;
        const fact = /"ref":"(F\d+)"/.exec(text)?.[1];
        return { content: { entities: [{ n: 0, match: ref }], facts: fact ? [{ n: 0, duplicateOf: null, contradicts: [fact] }] : [] } };
      };
      await remember(ds.name, "Person222 lives in Lyon.");
      const now = await current(app, ds.id);
      expect(now.entities).toEqual(["Lyon", "Paris", "Person22"]);
      expect(now.facts).toEqual(["Person22 lives_in Lyon"]);
    });
  },
  { env: () => ({ GB_MODELS: "openai", OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: fake.url, GB_MODEL_MAX_RETRIES: "0", GB_MODEL_TIMEOUT_MS: "5000" }) },
);
