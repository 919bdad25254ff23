import { expect, type Page, test } from "@playwright/test";
import { ports } from "./ports";
import { cleanUp, health, startServer, tempDir } from "./server";
import { shoot } from "./shoot";

/*
 * The REST API on the built app (which bundles server code its own way: two copies of our
 * classes, module singletons per bundle), on a server of its own with auth on: the OpenAPI
 * document, calls with a bad and a good key, and /docs, the API reference, which must list the
 * operations while no request of the page leaves 127.0.0.1 (test-results/docs.png, docs-390.png).
 */

const port = ports.docs;
const app = `http://127.0.0.1:${port}`;
const KEY = "gb_docs_e2e_bootstrap_key_000000000000";

test.describe.configure({ mode: "serial", timeout: 120_000 });

test.beforeAll(async () => {
  startServer(port, tempDir("e2e-docs"), { GB_AUTH: "on", GB_BOOTSTRAP_API_KEY: KEY });
  await health(port, 90_000);
});

test.afterAll(cleanUp);

const rest = (method: string, path: string, opts: { key?: string; body?: unknown } = {}) =>
  fetch(`${app}/api/v1${path}`, {
    method,
    headers: {
      ...(opts.key ? { authorization: `Bearer ${opts.key}` } : {}),
      ...(opts.body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
  });

test("the OpenAPI document is served, and the REST API answers in JSON", async () => {
  const doc = await fetch(`${app}/api/openapi.json`);
  expect(doc.status).toBe(200);
  const body = (await doc.json()) as { openapi: string; info: { title: string }; paths: Record<string, unknown> };
  expect(body.openapi).toBe("3.1.0");
  expect(body.info.title).toBe("gligabao");
  expect(Object.keys(body.paths)).toEqual(expect.arrayContaining(["/remember", "/query", "/runs/remember", "/v1/gb/admin/api/remember-runs"]));

  const refused = await rest("GET", "/datasets", { key: "gb_not_a_key_000000000000000000000000000" });
  expect(refused.status).toBe(401);
  expect(refused.headers.get("content-type")).toContain("application/json");
  expect(await refused.json()).toMatchObject({ code: "UNAUTHORIZED" });

  const made = await rest("POST", "/datasets", { key: KEY, body: { name: "docs-e2e" } });
  expect(made.status).toBe(200);
  expect(await made.json()).toMatchObject({ name: "docs-e2e", createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) });
  // a domain error thrown by another bundle's copy of our classes is still its code
  const again = await rest("POST", "/datasets", { key: KEY, body: { name: "docs-e2e" } });
  expect(again.status).toBe(409);
  expect(await again.json()).toMatchObject({ code: "CONFLICT", message: 'dataset "docs-e2e" already exists' });
  const bad = await rest("POST", "/datasets", { key: KEY, body: { name: "Not A Slug" } });
  expect(bad.status).toBe(400);
  expect(await bad.json()).toMatchObject({ code: "BAD_REQUEST", field: "name", message: expect.stringMatching(/^name: must be a lowercase slug/) });

  const run = await rest("POST", "/remember", { key: KEY, body: { dataset: "docs-e2e", text: "Ines Moreau repairs violins in Lyon.", wait: true } });
  expect(run.status).toBe(200);
  expect(await run.json()).toMatchObject({ status: "succeeded" });
  const answer = await rest("POST", "/query", { key: KEY, body: { dataset: "docs-e2e", question: "What does Ines Moreau repair?" } });
  expect(answer.status).toBe(200);
  const { sources } = (await answer.json()) as { sources: { text: string }[] };
  expect(sources.some((s) => s.text.includes("violins"))).toBe(true);
});

/** Every request the page's browser context makes (its workers' too), by URL. */
function recordRequests(page: Page): string[] {
  const urls: string[] = [];
  page.context().on("request", (req) => urls.push(req.url()));
  return urls;
}

test("/docs lists the operations, loading everything from this server", async ({ page }) => {
  const urls = recordRequests(page);
  const problems: string[] = [];
  page.on("pageerror", (e) => problems.push(e.message));
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(`${app}/docs`);
  await expect(page.getByText("gligabao", { exact: true }).first()).toBeVisible({ timeout: 30_000 });
  await expect(page.getByText("Remember a text (with wait: true, when its run has ended)").first()).toBeVisible();
  await expect(page.getByText("Ask a question; the answer cites its sources as [n]").first()).toBeVisible();
  await expect(page.getByText("Forget a person everywhere (by userId or entityId)").first()).toBeVisible();
  await expect(page.getByText("/runs/remember/{id}/outputs").first()).toBeVisible();
  await expect(page.getByText("http://127.0.0.1:" + port + "/api/v1").first()).toBeVisible();
  // Scalar renders an operation when it comes into view: scroll through once, for the full-page shot
  for (let y = 0; y < (await page.evaluate(() => document.body.scrollHeight)); y += 800) {
    await page.mouse.wheel(0, 800);
    await page.waitForTimeout(100);
  }
  await page.evaluate(() => window.scrollTo(0, 0));
  // the first screen, as a reader lands on it (the full page is 20 000 px tall)
  await page.screenshot({ path: "test-results/docs-top.png" });
  // the sidebar's entry takes the reader to the operation
  await page.getByText("Ask a question; the answer cites its sources as [n]").first().click();
  await expect(page.getByRole("heading", { name: "Ask a question; the answer cites its sources as [n]" })).toBeInViewport();
  await page.waitForTimeout(500);
  await page.screenshot({ path: "test-results/docs-query.png" });
  await page.evaluate(() => window.scrollTo(0, 0));
  await shoot(page, "docs");
  // late requests (fonts, telemetry, an agent) would have come by now (Playwright's "networkidle"
  // never came on this page, though the browser had no request pending)
  await page.waitForTimeout(3000);

  const hosts = [...new Set(urls.filter((u) => /^(https?|wss?):/.test(u)).map((u) => new URL(u).hostname))];
  expect(hosts).toEqual(["127.0.0.1"]);
  expect(urls).toEqual(expect.arrayContaining([`${app}/docs/scalar.js`, `${app}/api/openapi.json`]));
  expect(problems).toEqual([]);
});
