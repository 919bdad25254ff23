import http from "node:http";
import { expect, test } from "@playwright/test";
import { ports } from "./ports";
import { cleanUp, health, startServer, tempDir } from "./server";

/*
 * The built app answers the tRPC and REST APIs' calls in its own lane, before Next's router
 * (src/server/api/lane.ts): what a client sees of that is the same answers and headers, API
 * answers never gzipped (pages still are), and Next still answering what the lane leaves it
 * (OPTIONS, a path holding %). GB_API_LANE=off sends them through Next again.
 */

test.afterEach(cleanUp);
test.describe.configure({ timeout: 180_000 });

const GZIP = { "accept-encoding": "gzip" };

/** A REST answer of several KB: the datasets list, once there are twenty with long names. */
async function bigApiAnswer(base: string): Promise<Response> {
  for (let i = 0; i < 20; i++) {
    const r = await fetch(`${base}/api/v1/datasets`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ name: `lane-${i}-${"x".repeat(50)}` }) });
    expect(r.status, await r.clone().text()).toBe(200);
  }
  return fetch(`${base}/api/v1/datasets?limit=50`, { headers: GZIP });
}

test("API calls go by the lane: the same answers and security headers, uncompressed; Next keeps OPTIONS, % paths and pages", async () => {
  const port = ports.lane[0];
  const base = `http://127.0.0.1:${port}`;
  startServer(port, tempDir("e2e-lane"));
  await health(port, 90_000);

  const list = await bigApiAnswer(base);
  expect(list.status).toBe(200);
  expect(list.headers.get("content-encoding")).toBeNull();
  expect(list.headers.get("x-content-type-options")).toBe("nosniff");
  expect(list.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
  const body = (await list.json()) as { items: { name: string }[] };
  expect(body.items.filter((d) => d.name.startsWith("lane-")).length).toBe(20);
  expect(JSON.stringify(body).length).toBeGreaterThan(2_000);

  // tRPC too: a query and a bad input's error as before
  const ask = await fetch(`${base}/api/trpc/query.ask`, { method: "POST", headers: { "content-type": "application/json", ...GZIP }, body: JSON.stringify({ json: { dataset: "default", question: "" } }) });
  expect(ask.status).toBe(400);
  expect(ask.headers.get("content-encoding")).toBeNull();
  expect(JSON.stringify(await ask.json())).toContain("question");

  // a Host header that names no host is answered as Next answers it, not with a 500
  for (const host of ["exa mple", "a@b:c", ""]) {
    const status = await new Promise<number>((resolve, reject) => {
      http.get({ host: "127.0.0.1", port, path: "/api/trpc/system.health", headers: { host } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      }).on("error", reject);
    });
    expect(status, `Host: ${host}`).toBe(200);
  }

  // what Next answers as before: a page (gzipped), OPTIONS (its Allow), a path that is not UTF-8
  const page = await fetch(`${base}/`, { headers: GZIP });
  expect(page.status).toBe(200);
  expect(page.headers.get("content-encoding")).toBe("gzip");
  const options = await fetch(`${base}/api/v1/datasets`, { method: "OPTIONS" });
  expect(options.status).toBe(204);
  expect(options.headers.get("allow")).toContain("POST");
  const bad = await fetch(`${base}/api/v1/remember/%E0`);
  expect(bad.status).toBe(400);
  expect(await bad.json()).toEqual({ code: "BAD_REQUEST", message: "path: is not valid percent-encoded UTF-8" });
});

test("GB_API_LANE=off: API calls go through Next, which gzips a large answer", async () => {
  const port = ports.lane[1];
  const base = `http://127.0.0.1:${port}`;
  startServer(port, tempDir("e2e-lane-off"), { GB_API_LANE: "off" });
  await health(port, 90_000);
  const list = await bigApiAnswer(base);
  expect(list.status).toBe(200);
  expect(list.headers.get("content-encoding")).toBe("gzip");
  expect(((await list.json()) as { items: unknown[] }).items.length).toBeGreaterThanOrEqual(20);
});
