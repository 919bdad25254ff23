import { expect, test } from "@playwright/test";

test("health answers on the embedded defaults", async ({ request }) => {
  const res = await request.get("/api/health");
  expect(res.ok()).toBe(true);
  expect(await res.json()).toEqual({ ok: true, db: "pglite", models: "builtin", vector: "pgvector", auth: "off", needsFirstOwner: false });
});

test("the home page shows the instance, its datasets and its pipelines", async ({ page }) => {
  await page.goto("/");
  await expect(page.getByTestId("auth-off")).toHaveText("Auth is off (GB_AUTH=off): everyone is the owner");
  await expect(page.getByTestId("status")).toHaveText("ok");
  await expect(page.getByTestId("db")).toHaveText("PGlite (embedded)");
  await expect(page.getByTestId("models")).toHaveText("builtin models (offline)");
  await expect(page.getByTestId("datasets")).toContainText("default");
  await expect(page.getByText("extract_graph")).toBeVisible();
  await expect(page.getByText("retrieve_graph")).toBeVisible();
  await page.screenshot({ path: "test-results/home.png", fullPage: true });
});

test("a dataset created through the API appears on the page", async ({ page, request }) => {
  const name = `e2e-${Date.now().toString(36)}`;
  const res = await request.post("/api/trpc/datasets.create", { data: { json: { name } } });
  expect(res.status()).toBe(200);
  await page.goto("/");
  await expect(page.getByTestId("datasets")).toContainText(name);
  const dup = await request.post("/api/trpc/datasets.create", { data: { json: { name } } });
  expect(dup.status()).toBe(409);
});
