import { type APIRequestContext, expect, type Locator, type Page, test } from "@playwright/test";
import { shoot as screenshots } from "./shoot";
import { ports } from "./ports";

/*
 * The remember and query run views, the run pages (stages, help, outputs, waterfall, memory
 * diff, sources), live updates and the inference page. Most tests use the auth-off app on 3100
 * (builtin models); failed, flagged and slow runs come from the app on 3102, whose loopback
 * model server fails or slows a text on its markers (e2e/fake-model-server.ts). Every page is
 * screenshotted at 1280 and 390 pixels wide (test-results/runs-*.png).
 */
const app = `http://127.0.0.1:${ports.app}`;
const models = `http://127.0.0.1:${ports.models}`;

async function shoot(page: Page, name: string) {
  // everything on the page has loaded
  await expect(page.locator(".loading")).toHaveCount(0);
  await screenshots(page, `runs-${name}`);
}

/** A tRPC mutation over HTTP (superjson's { json } envelope); returns the result's json. */
async function call<T>(request: APIRequestContext, base: string, path: string, input: unknown): Promise<T> {
  const res = await request.post(`${base}/api/trpc/${path}`, { data: { json: input }, timeout: 60_000 });
  expect(res.status(), `${path}: ${await res.text()}`).toBe(200);
  return ((await res.json()) as { result: { data: { json: T } } }).result.data.json;
}

async function freshDataset(request: APIRequestContext, base: string, prefix: string): Promise<string> {
  const name = `${prefix}-${Date.now().toString(36)}${Math.floor(Math.random() * 1e4)}`;
  await call(request, base, "datasets.create", { name });
  return name;
}

type Submitted = { rememberRunId: string; status: string; error: string | null };
const remember = (request: APIRequestContext, base: string, dataset: string, text: string, wait = true) =>
  call<Submitted>(request, base, "remember.submit", { dataset, text, wait, source: { kind: "note", speaker: "e2e" } });

/** A text of several chunks at the default GB_CHUNK_TOKENS (512): the per-chunk stages show their items. */
const people = ["Alice", "Bob", "Carol", "Dan", "Erin", "Frank", "Grace", "Heidi", "Ivan", "Judy", "Mallory", "Niaj", "Olivia", "Peggy"];
const places = ["Paris", "Rome", "Oslo", "Lisbon", "Vienna", "Prague", "Dublin"];
const LONG = people
  .flatMap((p, i) => [
    `${p} moved to ${places[i % places.length]} in ${2001 + i} and works at ${["Acme", "Initech", "Globex", "Umbrella"][i % 4]} as an engineer.`,
    `${p} met ${people[(i + 1) % people.length]} at a conference about robotics, and they have written three papers together since then.`,
    `On weekends ${p} likes to walk along the river, to read old novels and to cook dinner for the neighbours in the building.`,
  ])
  .join(" ");

const tile = (page: Page, name: string) => page.getByTestId("status-tiles").locator(`[data-tile="${name}"]`);
const rows = (page: Page) => page.getByTestId("runs").locator("tbody tr");
const stageRow = (page: Page, stage: string) => page.getByTestId("stages").locator(`tr[data-stage="${stage}"]`);

/** Counts documents loaded in the page after `page.goto` (a reload is one), to show that nothing reloaded it. */
function navigations(page: Page): () => number {
  let n = 0;
  page.on("load", () => (n += 1));
  return () => n;
}

async function expectText(locator: Locator, text: string | RegExp, timeout = 10_000) {
  await expect(locator).toContainText(text, { timeout });
}

test("the tiles count a dataset's runs by status and filter the list", async ({ page, request }) => {
  test.setTimeout(90_000);
  const dataset = await freshDataset(request, app, "tiles");
  for (const city of ["Paris", "Rome", "Oslo"]) await remember(request, app, dataset, `Alice lives in ${city}. Bob visits her there.`);

  await page.goto(`${app}/admin/remember?dataset=${dataset}`);
  await expect(page.getByRole("heading", { level: 1, name: "Remember runs" })).toBeVisible();
  await expect(page.getByTestId("dataset-switcher")).toHaveValue(dataset);
  await expectText(tile(page, "succeeded"), "3");
  await expectText(tile(page, "failed"), "0");
  await expectText(tile(page, "queued"), "0");
  await expect(rows(page)).toHaveCount(3);
  await expect(rows(page).first()).toContainText("succeeded");
  await shoot(page, "remember-list");

  await test.step("a tile filters the list, and a second click clears it", async () => {
    await tile(page, "succeeded").click();
    await expect(tile(page, "succeeded")).toHaveAttribute("aria-pressed", "true");
    await expect(page).toHaveURL(/status=succeeded/);
    await expect(rows(page)).toHaveCount(3);
    await tile(page, "failed").click();
    await expect(tile(page, "failed")).toHaveAttribute("aria-pressed", "true");
    await expect(tile(page, "succeeded")).toHaveAttribute("aria-pressed", "false");
    await expect(page.getByText("No runs of this dataset match the filter.")).toBeVisible();
    await tile(page, "failed").click();
    await expect(tile(page, "failed")).toHaveAttribute("aria-pressed", "false");
    await expect(page).not.toHaveURL(/status=/);
    await expect(rows(page)).toHaveCount(3);
  });

  await test.step("a dataset without runs says how to make one", async () => {
    const empty = await freshDataset(request, app, "empty");
    await page.goto(`${app}/admin/query?dataset=${empty}`);
    await expect(page.getByRole("heading", { level: 1, name: "Query runs" })).toBeVisible();
    await expect(page.getByText(/No runs yet: ask a question in the Playground/)).toBeVisible();
    await page.goto(`${app}/admin/remember?dataset=${empty}`);
    await expect(page.getByText(/No runs yet: remember a text in the Playground or with the API/)).toBeVisible();
    await shoot(page, "remember-list-empty");
  });
});

test("a remember run page: every stage, its help and outputs, the waterfall, the memory diff, an inference", async ({ page, request }) => {
  test.setTimeout(90_000);
  const dataset = await freshDataset(request, app, "rrun");
  const { rememberRunId: id } = await remember(request, app, dataset, LONG);

  await page.goto(`${app}/admin/remember?dataset=${dataset}`);
  await page.getByRole("link", { name: `remember run ${id}` }).click();
  await expect(page).toHaveURL(new RegExp(`/admin/remember/${id}\\?dataset=${dataset}`));
  await expect(page.getByRole("heading", { level: 1 })).toContainText("Remember run");
  await expect(page.getByRole("heading", { level: 1 })).toContainText(id);
  await expectText(page.getByTestId("run-status"), "succeeded");
  await expect(page.getByTestId("run-text")).toContainText("Alice moved to Paris");
  await expect(page.getByTestId("stages").locator("tbody tr[data-stage]")).toHaveCount(12);
  await expect(stageRow(page, "classify_complexity")).toContainText("succeeded");
  // the text names a place: resolve_geo ran; web search is off (not asked for, no provider)
  await expect(stageRow(page, "resolve_geo")).toContainText("succeeded");
  await expect(stageRow(page, "web_search")).toContainText("skipped");
  // an advisory stage says that it is; no stage is a placeholder any more
  await expect(stageRow(page, "resolve_geo").getByTestId("advisory-resolve_geo")).toHaveText("Advisory");
  await expect(page.getByTestId("stages").getByText("not in this version")).toHaveCount(0);
  await expect(stageRow(page, "classify_complexity").getByTestId("advisory-classify_complexity")).toHaveText("Advisory");
  await expect(stageRow(page, "extract_graph").getByTestId("advisory-extract_graph")).toHaveCount(0);

  await test.step("the ? of a stage says what it does", async () => {
    await stageRow(page, "extract_graph").getByRole("button", { name: "What extract_graph does" }).click();
    await expect(page.getByTestId("help-extract_graph")).toContainText("For every chunk, asks the model for the entities");
    await stageRow(page, "web_search").getByRole("button", { name: "What web_search does" }).click();
    await expect(page.getByTestId("help-web_search")).toContainText("Off unless options.enrich.webSearch is true");
  });

  await test.step("Outputs shows what a stage kept, as JSON that folds", async () => {
    await stageRow(page, "chunk_text").getByRole("button", { name: "Outputs of chunk_text" }).click();
    const out = page.getByTestId("outputs-chunk_text");
    await expect(out).toContainText("chunks");
    await expect(out).toContainText("Alice moved to Paris");
    await stageRow(page, "extract_graph").getByRole("button", { name: "Outputs of extract_graph" }).click();
    await expect(page.getByTestId("outputs-extract_graph")).toContainText(/\d+ items \(chunks\)/);
  });

  await test.step("the waterfall has a bar per stage that ran, with the items of the per-chunk stages", async () => {
    const chart = page.getByTestId("waterfall");
    await expect(chart.locator("g[data-stage]")).toHaveCount(12);
    await expect(chart.locator('g[data-stage="extract_graph"] rect[data-item]').nth(1)).toBeAttached();
    await expect(chart.locator('g[data-stage="store"] rect[data-item]').nth(1)).toBeAttached();
    await expect(chart.locator("rect[data-call]").first()).toBeAttached();
  });

  await test.step("the memory diff lists what the run made", async () => {
    const diff = page.getByTestId("memory-changes");
    await expect(diff).toContainText("Entities created");
    await expect(diff).toContainText("Alice");
    await expect(diff).toContainText("Facts created");
  });
  await shoot(page, "remember-run");

  await test.step("an inference: provider, model, stage, run, request and response", async () => {
    await stageRow(page, "classify_complexity").getByRole("link", { name: /^inference / }).first().click();
    await expect(page.getByRole("heading", { level: 1 })).toContainText("Inference");
    await expect(page.getByTestId("provider")).toHaveText("builtin");
    await expect(page.getByTestId("model")).not.toBeEmpty();
    await expect(page.getByText("classify_complexity", { exact: true })).toBeVisible();
    await expect(page.getByRole("heading", { name: "Request" })).toBeVisible();
    await expect(page.getByRole("heading", { name: "Response" })).toBeVisible();
    await expect(page.getByRole("group", { name: "Request" })).toContainText("text");
    await shoot(page, "inference");
    await page.getByTestId("run-link").click();
    await expect(page).toHaveURL(new RegExp(`/admin/remember/${id}`));
  });
});

test("a query run page: the question, five stages, the sources retrieved and given", async ({ page, request }) => {
  test.setTimeout(60_000);
  const dataset = await freshDataset(request, app, "qrun");
  await remember(request, app, dataset, "Alice lives in Paris. Alice works at Acme. Bob lives in Rome.");
  const asked = await call<{ queryRunId: string; answer: string }>(request, app, "query.ask", { dataset, question: "Where does Alice live?", userId: "e2e-user" });

  await page.goto(`${app}/admin/query?dataset=${dataset}`);
  await expectText(tile(page, "succeeded"), "1");
  await page.getByRole("link", { name: `query run ${asked.queryRunId}` }).click();
  await expect(page.getByRole("heading", { level: 1 })).toContainText("Query run");
  await expect(page.getByTestId("run-question")).toHaveText("Where does Alice live?");
  await expect(page.getByText("e2e-user")).toBeVisible();
  await expect(page.getByTestId("stages").locator("tbody tr[data-stage]")).toHaveCount(5);
  // builtin embeddings are not semantic: the question is not embedded
  await expect(stageRow(page, "embed_question")).toContainText("skipped");
  await stageRow(page, "retrieve_graph").getByRole("button", { name: "What retrieve_graph does" }).click();
  await expect(page.getByTestId("help-retrieve_graph")).toContainText("Finds what the dataset knows about the question");
  const sources = page.getByTestId("query-sources");
  await expect(sources.getByTestId("given-sources")).toContainText("Alice lives in Paris");
  await expect(sources.getByTestId("retrieved-sources")).toContainText("Alice lives in Paris");
  await expect(page.getByTestId("waterfall").locator("g[data-stage]")).toHaveCount(5);
  await shoot(page, "query-run");
  // the run's page shows its dataset; choosing another opens that dataset's query runs
  await expect(page.getByTestId("dataset-switcher")).toHaveValue(dataset);
  await page.getByTestId("dataset-switcher").selectOption("default");
  await page.waitForURL(`${app}/admin/query?dataset=default`);
  await expect(page.getByRole("heading", { name: "Query runs" })).toBeVisible();
});

test("an unknown run says it was not found", async ({ page }) => {
  const id = "00000000-0000-4000-8000-000000000000";
  await page.goto(`${app}/admin/remember/${id}`);
  const alert = page.getByRole("alert").filter({ hasText: "not found" });
  await expect(alert).toContainText(`remember run not found: ${id}`);
  await page.goto(`${app}/admin/inferences/${id}`);
  await expect(alert).toContainText(`inference not found: ${id}`);
  await shoot(page, "not-found");
});

test("a run that met a model outage is queued again and succeeds; its page shows the attempts", async ({ page, request }) => {
  test.setTimeout(60_000);
  const dataset = await freshDataset(request, models, "retry");
  const r = await remember(request, models, dataset, "[flaky-extract] Carol lives in Oslo.");
  expect(r).toMatchObject({ status: "succeeded", error: null });
  await page.goto(`${models}/admin/remember/${r.rememberRunId}`);
  const attempts = page.getByTestId("run-attempts");
  await expect(attempts).toContainText("Succeeded on attempt 2");
  await expect(attempts.locator('li[data-kind="transient"]')).toContainText(/Attempt 1 · an outage, tried again · .*HTTP 503/);
  await expect(stageRow(page, "extract_graph")).toContainText("succeeded");
  await shoot(page, "remember-run-retried");
});

test("a failed run and a flagged run, in the list and on their pages", async ({ page, request }) => {
  test.setTimeout(90_000);
  const dataset = await freshDataset(request, models, "fail");
  const failed = await remember(request, models, dataset, "[fail-extract] Alice lives in Paris.");
  const flagged = await remember(request, models, dataset, "[fail-classify] Bob lives in Rome.");
  expect(failed.status).toBe("failed");
  expect(flagged.status).toBe("succeeded");

  await page.goto(`${models}/admin/remember?dataset=${dataset}`);
  await expectText(tile(page, "failed"), "1");
  await expectText(tile(page, "succeeded"), "1");
  await expectText(tile(page, "flagged"), "1");
  const failedRow = page.locator(`tr[data-run="${failed.rememberRunId}"]`);
  const flaggedRow = page.locator(`tr[data-run="${flagged.rememberRunId}"]`);
  await expect(failedRow).toContainText("failed");
  await expect(failedRow).toContainText(/extract/i);
  await expect(flaggedRow).toContainText("succeeded");
  await expect(flaggedRow.getByTestId("flagged")).toBeVisible();
  await expect(failedRow.getByTestId("flagged")).toHaveCount(0);
  await shoot(page, "remember-list-failed-flagged");

  await tile(page, "flagged").click();
  await expect(rows(page)).toHaveCount(1);
  await expect(rows(page).first()).toHaveAttribute("data-run", flagged.rememberRunId);

  await page.goto(`${models}/admin/remember/${failed.rememberRunId}`);
  await expect(page.getByTestId("run-error")).toContainText("The run failed");
  await expect(page.getByTestId("run-error")).toContainText("extract_graph");
  await expect(stageRow(page, "extract_graph")).toContainText("failed");
  await expect(stageRow(page, "summarize_chunk")).toContainText("not started");
  await shoot(page, "remember-run-failed");

  await page.goto(`${models}/admin/remember/${flagged.rememberRunId}`);
  await expect(page.getByTestId("run-status")).toContainText("succeeded");
  await expect(page.getByTestId("run-status").getByTestId("flagged")).toBeVisible();
  await expect(page.getByTestId("run-flag")).toContainText("classify_complexity");
  await expect(stageRow(page, "classify_complexity")).toContainText("failed");

  await test.step("an inference of the openai provider, with the error it got", async () => {
    await stageRow(page, "classify_complexity").getByRole("link", { name: /^inference / }).first().click();
    await expect(page.getByTestId("provider")).toHaveText("openai");
    await expect(page.getByTestId("inference-error")).toBeVisible();
    await expect(page.getByRole("group", { name: "Request" })).toContainText("messages");
    await shoot(page, "inference-failed");
  });
});

test("a running remember updates to succeeded on its page and in the list, without a reload", async ({ page, request }) => {
  test.setTimeout(120_000);
  const dataset = await freshDataset(request, models, "live");

  await test.step("in the list", async () => {
    // two slow runs: a dataset runs one at a time, so the second waits queued while the first runs
    await remember(request, models, dataset, "[slow] Carol works at Initech. Carol lives in Oslo.", false);
    const { rememberRunId: id } = await remember(request, models, dataset, "[slow] Erin works at Umbrella. Erin lives in Vienna.", false);
    await page.goto(`${models}/admin/remember?dataset=${dataset}`);
    const navigated = navigations(page);
    const row = page.locator(`tr[data-run="${id}"]`);
    await expect(row).toHaveAttribute("data-status", /queued|started/);
    await expect(page.getByText("Runs in progress: updating every second.")).toBeVisible();
    await shoot(page, "remember-list-live");
    await expect(row).toHaveAttribute("data-status", "succeeded", { timeout: 60_000 });
    await expectText(tile(page, "succeeded"), "2");
    await expect(page.getByText("Runs in progress: updating every second.")).toHaveCount(0);
    expect(navigated()).toBe(0);
  });

  await test.step("on its page, with its progress", async () => {
    await remember(request, models, dataset, "[slow] Frank works at Globex. Frank lives in Prague.", false);
    const { rememberRunId: id } = await remember(request, models, dataset, "[slow] Dan works at Globex. Dan lives in Lisbon.", false);
    await page.goto(`${models}/admin/remember/${id}`);
    const navigated = navigations(page);
    const status = page.getByTestId("run-status");
    await expect(status).toContainText(/queued|started/);
    await expect(page.getByTestId("progress")).toBeVisible();
    await expect(page.getByText("In progress: this page updates every second.")).toBeVisible();
    await shoot(page, "remember-run-live");
    await expect(status).toContainText("started", { timeout: 30_000 });
    await expect(page.getByTestId("waterfall").locator('g[data-stage="classify_complexity"] rect').first()).toBeAttached();
    await shoot(page, "remember-run-running");
    await expect(status).toContainText("succeeded", { timeout: 60_000 });
    await expect(page.getByTestId("progress")).toHaveCount(0);
    await expect(stageRow(page, "store")).toContainText("succeeded");
    await expect(page.getByTestId("memory-changes")).toContainText("Dan");
    expect(navigated()).toBe(0);
  });
});
