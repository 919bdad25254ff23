import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serve } from "../../../test/http-server";
import { braveSearch } from "./brave";
import { plainText } from "./http";
import { searxngSearch } from "./searxng";

/*
 * Both providers against a search server on 127.0.0.1 whose answer each test sets, and which
 * records what it was asked.
 */

type Reply = { status: number; body: string; delayMs?: number };
const json = (value: unknown, status = 200): Reply => ({ status, body: JSON.stringify(value) });

let reply: Reply = json({});
const asked: Request[] = [];
let server: { url: string; close(): Promise<void> };

beforeAll(async () => {
  server = await serve(() => async (req) => {
    asked.push(req);
    if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
    return new Response(reply.body, { status: reply.status, headers: { "content-type": "application/json" } });
  });
});
afterAll(() => server.close());

const answer = (r: Reply) => {
  reply = r;
  asked.length = 0;
};

describe("SearxNG", () => {
  it("asks <url>/search with q and format=json, and keeps the first http(s) results as plain text", async () => {
    answer(
      json({
        query: "Marguerite Perey",
        results: [
          { title: "Marguerite Perey", url: "http://127.0.0.1:9/perey", content: "A French physicist who <b>discovered</b> francium in 1939 &amp; more.", engine: "x" },
          { title: "A file", url: "file:///etc/passwd", content: "not a web page" },
          { title: "Francium", url: "https://127.0.0.1:9/francium", content: null },
          { title: "Fourth", url: "https://127.0.0.1:9/4", content: "d" },
        ],
        answers: [],
      }),
    );
    const s = searxngSearch(`${server.url}/`);
    expect(s).toMatchObject({ name: "searxng", endpoint: `${server.url}/search` });
    const { results, response } = await s.search("Marguerite Perey", { limit: 2 });
    expect(results).toEqual([
      { title: "Marguerite Perey", url: "http://127.0.0.1:9/perey", snippet: "A French physicist who discovered francium in 1939 & more." },
      { title: "Francium", url: "https://127.0.0.1:9/francium", snippet: "" },
    ]);
    expect(response).toEqual({ results });
    expect(asked).toHaveLength(1);
    const url = new URL(asked[0]!.url);
    expect(url.pathname).toBe("/search");
    expect(Object.fromEntries(url.searchParams)).toEqual({ q: "Marguerite Perey", format: "json" });
    expect(asked[0]!.headers.get("accept")).toBe("application/json");
  });

  it("takes an address that is already /search, and sends an address's credentials as basic auth without showing them", async () => {
    answer(json({ results: [] }));
    const withAuth = new URL(`${server.url}/searx/search`);
    withAuth.username = "me";
    withAuth.password = "s3cret";
    const s = searxngSearch(withAuth.href);
    expect(s.endpoint).toBe(`${server.url}/searx/search`);
    expect((await s.search("x", { limit: 3 })).results).toEqual([]);
    expect(new URL(asked[0]!.url).pathname).toBe("/searx/search");
    expect(asked[0]!.headers.get("authorization")).toBe(`Basic ${Buffer.from("me:s3cret").toString("base64")}`);
  });

  it("refuses a non-http address", () => {
    expect(() => searxngSearch("ftp://127.0.0.1/")).toThrow(/GB_SEARXNG_URL must be an http or https URL/);
  });

  it("an HTTP error, a malformed answer or no answer in time is an error that says so", async () => {
    const s = searxngSearch(server.url, { timeoutMs: 200 });
    answer({ status: 500, body: "boom" });
    await expect(s.search("x", { limit: 3 })).rejects.toThrow(`searxng at ${server.url}/search answered HTTP 500`);
    answer({ status: 200, body: "<html>not json</html>" });
    await expect(s.search("x", { limit: 3 })).rejects.toThrow(/answered something that is not JSON/);
    answer(json({ results: [{ title: "no url" }] }));
    await expect(s.search("x", { limit: 3 })).rejects.toThrow(/answered JSON that is not a searxng search result/);
    answer({ ...json({ results: [] }), delayMs: 1000 });
    await expect(s.search("x", { limit: 3 })).rejects.toThrow(/did not answer within 200 ms/);
  });

  it("stops when the caller's signal aborts, with the caller's reason", async () => {
    answer({ ...json({ results: [] }), delayMs: 1000 });
    const stop = new AbortController();
    const pending = searxngSearch(server.url).search("x", { limit: 3, signal: stop.signal });
    setTimeout(() => stop.abort(new Error("run stopped")), 50);
    await expect(pending).rejects.toThrow("run stopped");
  });
});

describe("Brave Search", () => {
  const key = "brave-key-never-shown";

  it("sends the key in X-Subscription-Token, q and count, and strips the <strong> of descriptions", async () => {
    answer(
      json({
        type: "search",
        query: { original: "Marguerite Perey" },
        web: {
          type: "search",
          results: [
            { title: "Marguerite <strong>Perey</strong>", url: "https://127.0.0.1:9/perey", description: "<strong>Marguerite Perey</strong> discovered francium.", age: "x" },
            { title: "Mail", url: "mailto:a@b.c", description: "no" },
          ],
        },
      }),
    );
    const s = braveSearch({ url: `${server.url}/res/v1/web/search`, key });
    expect(s).toMatchObject({ name: "brave", endpoint: `${server.url}/res/v1/web/search` });
    const { results, response } = await s.search("Marguerite Perey", { limit: 3 });
    expect(results).toEqual([{ title: "Marguerite Perey", url: "https://127.0.0.1:9/perey", snippet: "Marguerite Perey discovered francium." }]);
    expect(JSON.stringify(response)).not.toContain(key);
    const url = new URL(asked[0]!.url);
    expect(url.pathname).toBe("/res/v1/web/search");
    expect(Object.fromEntries(url.searchParams)).toEqual({ q: "Marguerite Perey", count: "3" });
    expect(asked[0]!.headers.get("x-subscription-token")).toBe(key);
    expect(asked[0]!.headers.get("accept")).toBe("application/json");
  });

  it("an answer without web results is no results", async () => {
    answer(json({ type: "search", query: { original: "zzz" } }));
    expect((await braveSearch({ url: server.url, key }).search("zzz", { limit: 3 })).results).toEqual([]);
  });

  it("an HTTP error, a malformed answer or no answer in time is an error with the status and never the key", async () => {
    const s = braveSearch({ url: server.url, key, timeoutMs: 200 });
    const failure = async () => {
      const e: unknown = await s.search("x", { limit: 3 }).then(
        () => null,
        (err: unknown) => err,
      );
      expect(e).toBeInstanceOf(Error);
      expect((e as Error).message).not.toContain(key);
      return (e as Error).message;
    };
    answer({ status: 500, body: JSON.stringify({ error: { detail: "internal" } }) });
    expect(await failure()).toMatch(/^brave at http:\/\/127\.0\.0\.1:\d+\/ answered HTTP 500/);
    answer({ status: 401, body: "{}" });
    expect(await failure()).toMatch(/answered HTTP 401/);
    answer(json({ web: { results: "nope" } }));
    expect(await failure()).toMatch(/answered JSON that is not a brave search result/);
    answer(json({ unrelated: true }));
    expect(await failure()).toMatch(/not a brave search result/);
    answer({ ...json({ type: "search" }), delayMs: 1000 });
    expect(await failure()).toMatch(/did not answer within 200 ms/);
  });

  it("does not follow a redirect", async () => {
    answer({ status: 302, body: "" });
    await expect(braveSearch({ url: server.url, key }).search("x", { limit: 3 })).rejects.toThrow(/HTTP 302.*redirect, not followed/);
  });
});

describe("plainText", () => {
  it("drops tags, decodes entities and folds spaces", () => {
    expect(plainText("<strong>Lyon</strong>&nbsp;is &lt;big&gt; &#233;&#xE9; &bogus;\n  city")).toBe("Lyon is <big> éé &bogus; city");
  });
});
