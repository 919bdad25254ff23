import { type APIRequestContext, expect, type Page, test } from "@playwright/test";
import { shoot as screenshots } from "./shoot";
import { ports } from "./ports";

/*
 * The admin pages on the server with auth on (port 3101, a fresh data dir, no account yet), in
 * serial tests because each step needs the ones before it: the first owner, a key that works until
 * it is revoked, members, the audit log, signing out and in again; then a member added by the owner. Each page is screenshotted at
 * 1280 and 390 pixels wide (test-results/admin-*.png).
 */
const app = `http://127.0.0.1:${ports.auth}`;
const owner = { name: "Olivia Owner", email: "owner@example.com", password: "correct horse 42" };

/** A link of the header's admin navigation. */
const nav = (page: Page, name: string) => page.getByRole("navigation", { name: "Admin" }).getByRole("link", { name, exact: true });

const shoot = (page: Page, name: string) => screenshots(page, `admin-${name}`);

function remember(request: APIRequestContext, secret: string) {
  return request.post(`${app}/api/trpc/remember.submit`, {
    headers: { authorization: `Bearer ${secret}` },
    data: { json: { dataset: "default", text: "Alice lives in Paris.", wait: true } },
  });
}

test.describe.configure({ mode: "serial" });

test("first owner, keys, members, audit log, sign out and in", async ({ page, request }) => {
  test.setTimeout(120_000);

  await test.step("a new instance offers to make the first owner", async () => {
    await page.goto(`${app}/`);
    await expect(page.getByTestId("sign-in-link")).toContainText("Create the first owner");
    await expect(page.getByTestId("auth-off")).toHaveCount(0);
    await shoot(page, "home-signed-out");
    await page.goto(`${app}/admin`);
    await expect(page.getByRole("heading", { name: "Create the first owner" })).toBeVisible();
    await page.getByLabel("Name").fill(owner.name);
    await page.getByLabel("Email").fill(owner.email);
    await page.getByLabel("Password", { exact: true }).fill(owner.password);
    await page.getByLabel("Confirm password").fill("something else");
    await page.getByRole("button", { name: "Create the owner" }).click();
    await expect(page.getByRole("main").getByRole("alert")).toHaveText("The two passwords differ.");
    await page.getByLabel("Confirm password").fill(owner.password);
    await shoot(page, "first-owner");
    await page.getByRole("button", { name: "Create the owner" }).click();
    await page.waitForURL(`${app}/admin/keys`);
    await expect(page.getByTestId("account")).toContainText(owner.email);
    await expect(page.getByTestId("account")).toContainText("owner");
  });

  let secret = "";
  await test.step("a key made in the page works for the API until it is revoked", async () => {
    await expect(page.getByText("No keys yet")).toBeVisible();
    await page.getByLabel("Name").fill("e2e app");
    await page.getByRole("button", { name: "Create key" }).click();
    secret = (await page.getByTestId("new-key-secret").textContent()) ?? "";
    expect(secret).toMatch(/^gb_[A-Za-z0-9_-]{43}$/);
    await expect(page.getByText("it will not be shown again")).toBeVisible();
    const row = page.getByTestId("keys").getByRole("row", { name: /e2e app/ });
    await expect(row).toContainText(`${secret.slice(0, 11)}…`);
    await expect(row).toContainText("all datasets");
    await expect(row).toContainText("active");
    await shoot(page, "keys-new");

    const ok = await remember(request, secret);
    expect(ok.status()).toBe(200);

    await page.getByRole("button", { name: "I have saved it" }).click();
    await expect(page.getByTestId("new-key-secret")).toHaveCount(0);
    await row.getByRole("button", { name: "Revoke" }).click();
    await row.getByRole("button", { name: "Yes, revoke" }).click();
    await expect(row).toContainText("revoked");
    await expect(row.getByRole("button", { name: "Revoke" })).toHaveCount(0);
    await shoot(page, "keys");

    const refused = await remember(request, secret);
    expect(refused.status()).toBe(401);
  });

  await test.step("members: the last owner cannot step down", async () => {
    await nav(page, "Members").click();
    await expect(page.getByTestId("members")).toContainText(owner.email);
    await page.getByLabel(`Role of ${owner.email}`).selectOption("admin");
    await expect(page.getByRole("main").getByRole("alert")).toContainText("a team keeps at least one owner");
    await expect(page.getByLabel(`Role of ${owner.email}`)).toHaveValue("owner");
    await shoot(page, "members");
  });

  await test.step("the audit log lists what was done", async () => {
    await nav(page, "Audit log").click();
    const audit = page.getByTestId("audit");
    await expect(audit).toContainText("key.create");
    await expect(audit).toContainText("key.revoke");
    await expect(audit).toContainText("account.first_owner");
    await shoot(page, "audit");
  });

  await test.step("a person in two teams switches between them", async () => {
    // page.request shares the page's cookies: this is the signed-in owner
    const made = await page.request.post(`${app}/api/trpc/teams.create`, { data: { json: { name: "Second team" } } });
    expect(made.status()).toBe(200);
    // the header learns of the new team when the page loads
    await page.goto(`${app}/admin/keys`);
    const team = page.getByLabel("Team", { exact: true });
    await expect(team).toHaveValue("default");
    await expect(page.getByTestId("keys")).toContainText("e2e app");
    await team.selectOption({ label: "Second team (owner)" });
    await expect(page.getByText("No keys yet")).toBeVisible();
    await expect(page.getByText("This team has no datasets yet.")).toBeVisible();
    await shoot(page, "keys-second-team");
    await team.selectOption("default");
    await expect(page.getByTestId("keys")).toContainText("e2e app");
  });

  await test.step("sign out, a wrong password, then in again", async () => {
    // signed in, /admin is the remember run view
    await nav(page, "Admin").click();
    await page.waitForURL(/\/admin\/remember\?dataset=/);
    await expect(page.getByRole("heading", { name: "Remember runs" })).toBeVisible();
    await page.getByRole("button", { name: "Sign out" }).click();
    await expect(page.getByRole("heading", { name: "Sign in" })).toBeVisible();
    await expect(page.getByTestId("account")).toHaveCount(0);
    await page.getByLabel("Email").fill(owner.email);
    await page.getByLabel("Password").fill("not the password");
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page.getByRole("main").getByRole("alert")).toHaveText("Wrong email or password.");
    await shoot(page, "sign-in");
    await page.getByLabel("Password").fill(owner.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    // signed in again, /admin goes on to the run views
    await page.waitForURL(/\/admin\/remember\?dataset=/);
    await expect(page.getByTestId("account")).toContainText(owner.email);
    // signed in, the keys page shows the revoked key again
    await page.goto(`${app}/admin/keys`);
    await expect(page.getByTestId("keys")).toContainText("e2e app");
  });
});

test("an admin adds a member, who can then sign in", async ({ page }) => {
  // Next bundles better-auth.ts twice (instrumentation, routes): this checks that the sign-up
  // gate the member form opens is the one the App's better-auth hook reads.
  await page.goto(`${app}/admin`);
  await page.getByLabel("Email").fill(owner.email);
  await page.getByLabel("Password").fill(owner.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByTestId("account")).toContainText(owner.email);
  // signed in, /admin goes on to the remember runs (then adds ?dataset=): a click before that lands can be overtaken by it
  await page.waitForURL(/\/admin\/remember\?dataset=/);
  await nav(page, "Members").click();
  await page.getByLabel("Email").fill("bob@example.com");
  await page.getByLabel("Name").fill("Bob");
  await page.getByLabel("Initial password").fill("bob password 1");
  await page.getByRole("button", { name: "Add member" }).click();
  await expect(page.getByTestId("members")).toContainText("bob@example.com");
  await page.getByLabel("Role of bob@example.com").selectOption("viewer");
  await expect(page.getByLabel("Role of bob@example.com")).toHaveValue("viewer");
  await shoot(page, "members-added");

  await page.getByRole("button", { name: "Sign out" }).click();
  await page.waitForURL(`${app}/admin`);
  await expect(page.getByRole("heading", { name: "Sign in" })).toBeVisible();
  await page.getByLabel("Email").fill("bob@example.com");
  await page.getByLabel("Password").fill("bob password 1");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByTestId("account")).toContainText("viewer");
  // a viewer is told why the keys page is closed to them
  await page.goto(`${app}/admin/keys`);
  await expect(page.getByRole("main").getByRole("alert")).toContainText("Not allowed");
});
