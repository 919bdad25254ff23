import { type APIRequestContext, expect, type Page, test } from "@playwright/test";
import { shoot as screenshots } from "./shoot";

/*
 * The graph explorer and the playground on the server with auth off (port 3100, builtin models).
 * Each test makes a dataset of its own through the API. Each page is screenshotted at 1280 and
 * 390 pixels wide (test-results/graph-*.png, test-results/playground-*.png).
 */

const TEXT = "Alice lives in Paris. Alice works at Acme.";

async function shoot(page: Page, name: string) {
  await page.setViewportSize({ width: 1280, height: 900 });
  await screenshots(page, name);
}

async function freshDataset(request: APIRequestContext, prefix: string) {
  const name = `${prefix}-${Date.now().toString(36)}`;
  const res = await request.post("/api/trpc/datasets.create", { data: { json: { name } } });
  expect(res.status()).toBe(200);
  return name;
}

test.use({ viewport: { width: 1280, height: 900 } });

test("the playground remembers a text, follows its run, then answers with citations", async ({ page, request }) => {
  test.setTimeout(90_000);
  const dataset = await freshDataset(request, "play");
  await page.goto(`/admin/playground?dataset=${dataset}`);
  await expect(page.getByRole("heading", { name: "Playground", level: 1 })).toBeVisible();
  await expect(page.getByTestId("dataset-switcher")).toHaveValue(dataset);

  await test.step("a blank text is refused next to the field", async () => {
    await page.getByLabel("Text", { exact: true }).fill("   ");
    await page.getByRole("button", { name: "Remember" }).click();
    await expect(page.getByLabel("Text", { exact: true })).toHaveAttribute("aria-invalid", "true");
    await expect(page.getByRole("main").getByRole("alert")).toHaveText("must not be empty");
  });

  await test.step("a text is queued and followed to succeeded, with what it changed", async () => {
    await page.getByLabel("Text", { exact: true }).fill(TEXT);
    await page.getByText("Source, series, time and person").click();
    await page.getByLabel("Speaker").fill("Bob");
    await page.getByRole("button", { name: "Remember" }).click();
    const run = page.getByTestId("remember-run");
    await expect(run.getByTestId("run-status")).toHaveText("succeeded", { timeout: 30_000 });
    await expect(run.getByRole("link", { name: "Open the run log" })).toHaveAttribute("href", new RegExp(`^/admin/remember/[0-9a-f-]{36}\\?dataset=${dataset}$`));
    await expect(page.getByTestId("run-stages")).toContainText("extract_graph");
    const changes = page.getByTestId("memory-changes");
    await expect(changes).toContainText("Alice");
    await expect(changes).toContainText("Alice lives in Paris.");
    await expect(changes).toContainText("Alice works at Acme.");
  });
  await shoot(page, "playground-remembered");

  await test.step("a question is answered with citations linked to facts, and the query run", async () => {
    await page.getByLabel("Question").fill("Where does Alice live?");
    await page.getByRole("button", { name: "Ask" }).click();
    await expect(page.getByTestId("answer-text")).toContainText("Paris");
    const cite = page.getByTestId("citation").first();
    await expect(cite).toHaveAttribute("href", new RegExp(`^/admin/graph\\?dataset=${dataset}&entity=[0-9a-f-]{36}&fact=[0-9a-f-]{36}$`));
    await expect(page.getByTestId("sources")).toContainText("Alice lives in Paris.");
    await expect(page.getByTestId("query-run-link")).toHaveAttribute("href", new RegExp(`^/admin/query/[0-9a-f-]{36}\\?dataset=${dataset}$`));
    await shoot(page, "playground-answer");

    // the citation leads to the fact among its subject's facts in the graph explorer
    await cite.click();
    await expect(page.getByTestId("entity-name")).toHaveText("Alice");
    await expect(page.getByTestId("current-facts").locator('tr[aria-current="true"]')).toContainText("Alice lives in Paris.");
  });
});

test("the graph explorer finds an entity, shows its facts and draws its neighbourhood", async ({ page, request }) => {
  test.setTimeout(90_000);
  const dataset = await freshDataset(request, "graph");

  await test.step("an empty dataset says what to do", async () => {
    await page.goto(`/admin/graph?dataset=${dataset}`);
    await expect(page.getByRole("heading", { name: "Graph", level: 1 })).toBeVisible();
    await expect(page.getByText("Nothing remembered yet: try the Playground")).toBeVisible();
    await expect(page.getByRole("link", { name: "Playground", exact: true }).last()).toHaveAttribute("href", `/admin/playground?dataset=${dataset}`);
    await shoot(page, "graph-empty");
  });

  for (const text of [TEXT, "Bob lives in Paris."]) {
    const made = await request.post("/api/trpc/remember.submit", { data: { json: { dataset, text, wait: true } } });
    expect(made.status()).toBe(200);
  }

  await test.step("search finds Alice; her facts and the drawing show", async () => {
    await page.reload();
    await page.getByLabel("Search entities").fill("ali");
    const results = page.getByTestId("entity-results");
    await expect(results.getByRole("link")).toHaveCount(1);
    await results.getByRole("link", { name: /Alice/ }).click();
    await expect(page).toHaveURL(new RegExp(`entity=[0-9a-f-]{36}`));
    await expect(page.getByTestId("entity-name")).toHaveText("Alice");
    const current = page.getByTestId("current-facts");
    await expect(current).toContainText("Alice lives in Paris.");
    await expect(current).toContainText("Alice works at Acme.");
    await expect(current.getByRole("link", { name: /^run / }).first()).toHaveAttribute("href", new RegExp(`^/admin/remember/[0-9a-f-]{36}\\?dataset=${dataset}$`));
    await expect(page.getByTestId("graph-canvas").locator("canvas").first()).toBeAttached();
    await expect(page.getByTestId("drawn-entities")).toContainText("Paris");
    await expect(page.getByTestId("drawn-entities")).toContainText("Acme");
    await expect(page.getByTestId("drawn-entities")).not.toContainText("Bob");
    await shoot(page, "graph-alice");
  });

  const aliceUrl = page.url();
  await test.step("a node is expanded (its neighbours join the drawing), then opened", async () => {
    // the Expand button does what a click on the node does, for keyboards and for tests
    await page.getByRole("button", { name: "Expand Paris" }).click();
    await expect(page.getByRole("button", { name: "Expand Paris" })).toHaveCount(0);
    await expect(page.getByTestId("drawn-entities").getByRole("listitem").filter({ hasText: "Paris" })).toContainText("expanded");
    await expect(page.getByTestId("drawn-entities")).toContainText("Bob");
    await shoot(page, "graph-expanded");
    await page.getByRole("link", { name: "Open Paris" }).click();
    await expect(page.getByTestId("entity-name")).toHaveText("Paris");
    await expect(page.getByTestId("current-facts")).toContainText("Alice lives in Paris.");
    await expect(page.getByTestId("current-facts")).toContainText("Bob lives in Paris.");
    await shoot(page, "graph-paris");
  });

  await test.step("a fact that changed is kept as a past fact, with the run that retired it", async () => {
    const moved = await request.post("/api/trpc/remember.submit", { data: { json: { dataset, text: "In 2024 Alice moved to Berlin.", wait: true } } });
    expect(moved.status()).toBe(200);
    await page.goto(aliceUrl);
    await expect(page.getByTestId("current-facts")).toContainText("Berlin");
    const past = page.getByTestId("past-facts");
    await expect(past).toContainText("Alice lives in Paris.");
    await expect(past).toContainText("retired by");
    await expect(past).toContainText("until"); // its validity ended when the move began
    await expect(page.getByTestId("graph-canvas").locator("canvas").first()).toBeAttached();
    await shoot(page, "graph-history");
  });
});
