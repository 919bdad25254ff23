import { type APIRequestContext, expect, type Page, test } from "@playwright/test";
import { shoot as screenshots } from "./shoot";

/*
 * Enrichment on the admin pages, on the server with auth off (builtin models, the offline
 * gazetteer): a text naming a place gets its coordinates (resolve_geo on the run page, the place
 * on the entity), a question near another city finds it (the playground), and a series of reports
 * with a rising number is charted with the observation written across it (the graph page's
 * Series view). Screenshots: test-results/enrich-*.png.
 */

async function shoot(page: Page, name: string) {
  await page.setViewportSize({ width: 1280, height: 900 });
  await screenshots(page, `enrich-${name}`);
}

async function freshDataset(request: APIRequestContext, prefix: string) {
  const name = `${prefix}-${Date.now().toString(36)}`;
  const res = await request.post("/api/trpc/datasets.create", { data: { json: { name } } });
  expect(res.status()).toBe(200);
  return name;
}

async function remember(request: APIRequestContext, input: Record<string, unknown>): Promise<string> {
  const res = await request.post("/api/trpc/remember.submit", { data: { json: { ...input, wait: true } } });
  const body = (await res.json()) as { result: { data: { json: { rememberRunId: string; status: string } } } };
  expect(res.status(), JSON.stringify(body)).toBe(200);
  expect(body.result.data.json.status).toBe("succeeded");
  return body.result.data.json.rememberRunId;
}

test.use({ viewport: { width: 1280, height: 900 } });

test("a place gets its coordinates, and a question near another city finds it", async ({ page, request }) => {
  test.setTimeout(120_000);
  const dataset = await freshDataset(request, "geo");
  const runId = await remember(request, { dataset, text: "Margot Lefranc opened a bakery in Villeurbanne." });

  await test.step("the run page shows resolve_geo and what it found", async () => {
    await page.goto(`/admin/remember/${runId}?dataset=${dataset}`);
    const row = page.locator('tr[data-stage="resolve_geo"]');
    await expect(row).toContainText("succeeded");
    await row.getByRole("button", { name: "Outputs of resolve_geo" }).click();
    const out = page.getByTestId("outputs-resolve_geo");
    await expect(out).toContainText("Villeurbanne");
    await expect(out).toContainText("resolved");
    await shoot(page, "resolve-geo");
  });

  await test.step("the entity shows its place", async () => {
    await page.goto(`/admin/graph?dataset=${dataset}`);
    await page.getByLabel("Search entities").fill("villeur");
    await page.getByTestId("entity-results").getByRole("link", { name: /Villeurbanne/ }).click();
    await expect(page.getByTestId("entity-name")).toHaveText("Villeurbanne");
    // Villeurbanne is at about 45.77 N, 4.88 E, in France
    await expect(page.getByTestId("entity-place")).toContainText(/45\.7\d+, 4\.8\d+ · FR · geonames:\d+/);
    await shoot(page, "place");
  });

  await test.step("the playground answers a question near Lyon with the bakery and its distance", async () => {
    await page.goto(`/admin/playground?dataset=${dataset}`);
    await page.getByLabel("Question").fill("What do I know near Lyon?");
    await page.getByRole("button", { name: "Ask" }).click();
    await expect(page.getByTestId("sources")).toContainText("Villeurbanne", { timeout: 30_000 });
    await expect(page.getByTestId("answer-text")).toContainText("Villeurbanne");
    // Villeurbanne's centre is about 5 km from Lyon's
    await expect(page.getByTestId("source-distance").first()).toContainText(/^[3-7]\.\d km \(Villeurbanne\)$/);
    await shoot(page, "near-lyon");
    // the query run shows detect_geo and nearby_geo
    await page.getByTestId("query-run-link").click();
    await expect(page.locator('tr[data-stage="detect_geo"]')).toContainText("succeeded");
    await expect(page.locator('tr[data-stage="nearby_geo"]')).toContainText("succeeded");
    await shoot(page, "near-lyon-run");
  });
});

test("a series of reports is charted on the graph page, with what was observed across it", async ({ page, request }) => {
  test.setTimeout(120_000);
  const dataset = await freshDataset(request, "series");
  const reports = [
    ["2026-02-01T00:00:00Z", "Orvane's subscribers were 1200 users. The team moved to a new office."],
    ["2026-03-01T00:00:00Z", "Orvane's subscribers were 1650 users. A mobile app shipped."],
    ["2026-04-01T00:00:00Z", "Orvane's subscribers were 2300 users. Two engineers joined."],
  ] as const;
  for (const [occurredAt, text] of reports) await remember(request, { dataset, text, occurredAt, series: "orvane-monthly" });

  await page.goto(`/admin/graph?dataset=${dataset}`);
  await page.getByRole("link", { name: "Series", exact: true }).click();
  await expect(page.getByTestId("series-keys")).toContainText("orvane-monthly");
  await page.getByTestId("series-keys").getByRole("link", { name: /orvane-monthly/ }).click();
  await expect(page).toHaveURL(/view=series&series=orvane-monthly/);
  // one chart, its three points named in its label
  const chart = page.getByRole("img", { name: /subscribers.*1[.,]?2.*1[.,]?65.*2[.,]?3/i });
  await expect(chart).toBeVisible();
  await expect(page.getByTestId("series-observations")).toContainText("Orvane");
  await expect(page.getByTestId("series-observations")).toContainText("rose");
  await shoot(page, "series");
});
