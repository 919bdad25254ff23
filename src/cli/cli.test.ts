import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { promisify } from "node:util";
import { afterAll, beforeAll, expect, it } from "vitest";
import { handleRestV1, REST_ENDPOINT } from "../server/api/openapi";
import { createApiKey } from "../server/auth/keys";
import { LOCAL_CALLER } from "../server/auth/caller";
import { describeEachDriver, freshDataset } from "../test/db";
import { serve } from "../test/http-server";
import { type CliIo, run } from "./main";

const execFileP = promisify(execFile);

/** One command line run in process against the test server: exit code and what it printed. */
interface Ran {
  code: number;
  out: string;
  err: string;
}

describeEachDriver("the command line against a server", (ctx) => {
  let server: Awaited<ReturnType<typeof serve>>;
  const keys: Record<"admin" | "member" | "viewer", string> = { admin: "", member: "", viewer: "" };
  let dataset = "";

  beforeAll(async () => {
    const { app } = ctx();
    server = await serve((path) => (path.startsWith(REST_ENDPOINT) ? (req) => handleRestV1(req, app) : undefined));
    for (const role of ["admin", "member", "viewer"] as const) {
      keys[role] = (await createApiKey({ db: app.database.db, caller: LOCAL_CALLER, input: { name: `cli ${role}`, role } })).secret;
    }
    dataset = (await freshDataset(app, "cli")).name;
  });
  afterAll(() => server.close());

  async function cli(argv: string[], over: Partial<CliIo> & { key?: string } = {}): Promise<Ran> {
    let out = "";
    let err = "";
    const code = await run(argv, {
      stdout: (s) => void (out += s),
      stderr: (s) => void (err += s),
      readStdin: async () => null,
      env: { GB_URL: server.url, GB_API_KEY: over.key ?? keys.admin },
      tty: false,
      pollMs: 20,
      ...over,
    });
    return { code, out, err };
  }

  it("remembers a text, showing each stage as it ends, then answers a query citing it", async () => {
    const r = await cli(["remember", "Ilse Varga opened a pottery studio in Ghent.", "--dataset", dataset, "--user", "ilse"], { key: keys.member });
    expect(r.err).toMatch(/^remember run [0-9a-f-]{36}\n/);
    expect(r.err).toContain("  ✓ chunk_text");
    expect(r.err).toContain("  ✓ store");
    expect(r.out).toMatch(/^remember run [0-9a-f-]{36} succeeded in /);
    expect(r.code).toBe(0);

    const q = await cli(["query", "Where did Ilse Varga open a pottery studio?", "--dataset", dataset, "--json"], { key: keys.viewer });
    expect(q.code).toBe(0);
    const answer = JSON.parse(q.out) as { answer: string; queryRunId: string; sources: { n: number; text: string }[] };
    const cited = answer.sources.find((s) => /Ghent/.test(s.text));
    expect(cited).toBeDefined();
    expect(answer.answer).toContain(`[${cited?.n}]`);

    const human = await cli(["query", "Where did Ilse Varga open a pottery studio?", "--dataset", dataset]);
    expect(human.out).toMatch(/\nsources:\n {2}\[1\] .*Ghent/);

    // the query run, found without --kind (the remember log says NOT_FOUND first), and in the list
    const got = await cli(["runs", "get", answer.queryRunId, "--json"]);
    expect(got.code).toBe(0);
    expect(JSON.parse(got.out)).toMatchObject({ kind: "query", id: answer.queryRunId, status: "succeeded" });
    const list = await cli(["runs", "--kind", "query", "--dataset", dataset, "--json"]);
    expect((JSON.parse(list.out) as { items: { id: string }[] }).items.map((i) => i.id)).toContain(answer.queryRunId);
    const rememberList = await cli(["runs", "list", "--dataset", dataset]);
    expect(rememberList.out).toMatch(/^[0-9a-f-]{36} {2}succeeded {2}/);
  });

  it("reads the text from standard input, and with --no-wait prints the run id at once", async () => {
    const r = await cli(["remember", "--dataset", dataset, "--no-wait"], { readStdin: async () => "Tomas Brink keeps bees in Utrecht." });
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^[0-9a-f-]{36}\n$/);
    const none = await cli(["remember", "--dataset", dataset]);
    expect(none.code).toBe(2);
    expect(none.err).toContain("pipe it in");
  });

  it("forgets a person only with --yes and an admin key, and prints the receipt", async () => {
    await cli(["remember", "Noor Haddad teaches violin in Leiden.", "--dataset", dataset, "--user", "noor"]);
    const unconfirmed = await cli(["forget", "--user", "noor", "--dataset", dataset]);
    expect(unconfirmed.code).toBe(2);
    expect(unconfirmed.err).toContain("add --yes");
    const member = await cli(["forget", "--user", "noor", "--dataset", dataset, "--yes"], { key: keys.member });
    expect(member.code).toBe(1);
    expect(member.err).toMatch(/needs the role admin/);
    const admin = await cli(["forget", "--user", "noor", "--dataset", dataset, "--yes", "--json"]);
    expect(admin.code).toBe(0);
    const receipt = JSON.parse(admin.out) as { datasets: string[]; deleted: Record<string, number> };
    expect(receipt.datasets).toEqual([dataset]);
    expect(receipt.deleted.gb_texts).toBe(1);
  });

  it("says what went wrong: a refused key, a bad field, an unknown run, a wrong command line", async () => {
    const refused = await cli(["runs", "--dataset", dataset], { key: "gb_not_a_key_at_all_00000000000000" });
    expect(refused).toMatchObject({ code: 1 });
    expect(refused.err).toContain("(GB_API_KEY was refused)");
    const bad = await cli(["query", "hello", "--dataset", "Not A Slug", "--json"]);
    expect(bad.code).toBe(1);
    expect(JSON.parse(bad.err)).toMatchObject({ error: { code: "BAD_REQUEST", field: "dataset" } });
    const missing = await cli(["runs", "get", randomUUID()]);
    expect(missing.code).toBe(1);
    expect(missing.err).toMatch(/not found/i);
    expect((await cli(["query", "x", "--limit", "0"])).code).toBe(2);
    expect((await cli(["runs", "--kind", "both"])).err).toContain("--kind: must be remember or query");
    expect((await cli(["remember", "x", "--bogus"])).code).toBe(2);
    const unreachable = await cli(["query", "x"], { env: { GB_URL: "http://127.0.0.1:1" } });
    expect(unreachable.code).toBe(1);
    expect(unreachable.err).toContain("cannot reach the server at http://127.0.0.1:1");
  });

  it("runs as the `gligabao` bin (npx gligabao …)", async () => {
    const env = { ...process.env, GB_URL: server.url, GB_API_KEY: keys.admin };
    const { stdout } = await execFileP(process.execPath, ["bin/gligabao.mjs", "remember", "Pia Lund sails a yawl named Tern.", "--dataset", dataset, "--json"], { env });
    expect(JSON.parse(stdout)).toMatchObject({ kind: "remember", status: "succeeded" });
    const failed = await execFileP(process.execPath, ["bin/gligabao.mjs", "query", "x", "--dataset", "nope-nope"], { env }).catch((e: { code: number; stderr: string }) => e);
    expect(failed).toMatchObject({ code: 1 });
    expect((failed as { stderr: string }).stderr).toMatch(/^gligabao: /);
  }, 60_000);
});

it("says the run is kept when the server goes away while a remember is watched", async () => {
  // a server that takes the remember, then drops the connection of the first look at it
  const runId = randomUUID();
  const edge = createServer((req, res) => {
    if (req.method === "POST") {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ rememberRunId: runId, status: "queued", error: null, replayed: false }));
    } else {
      req.socket.destroy();
    }
  });
  await new Promise<void>((resolve) => edge.listen(0, "127.0.0.1", resolve));
  let err = "";
  try {
    const code = await run(["remember", "A note.", "--dataset", "any"], {
      stdout: () => undefined,
      stderr: (s) => void (err += s),
      readStdin: async () => null,
      env: { GB_URL: `http://127.0.0.1:${(edge.address() as AddressInfo).port}`, GB_API_KEY: "gb_any" },
      tty: false,
      pollMs: 20,
    });
    expect(code).toBe(1);
    expect(err).toContain("cannot reach the server");
    expect(err).toContain(`the run is kept and goes on when the server is back: gligabao runs get ${runId}`);
  } finally {
    edge.close();
  }
});
