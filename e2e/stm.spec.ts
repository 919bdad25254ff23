import { type Browser, expect, type Page, test } from "@playwright/test";
import { cleanUp, health, startServer, tempDir } from "./server";
import { ports } from "./ports";
import { shoot as screenshots } from "./shoot";

/*
 * The short-term memory page (/admin/stm) on a server of its own (auth on, a bootstrap owner and
 * owner key, a fresh data dir): STM is seeded over HTTP with stm.capture and stm.upgrade, then
 * the owner finds keys by user, reads one (messages, summary, categories, cadence, versions),
 * resets a channel and forgets a user; a viewer's reset is refused. Each view is screenshotted at
 * 1280 and 390 pixels wide (test-results/stm-*.png).
 */

const port = ports.stm;
const app = `http://127.0.0.1:${port}`;
const EMAIL = "owner@example.com";
const PASSWORD = "correct horse battery";
const KEY = "gb_stm_e2e_bootstrap_key_0000000000000";
const DATASET = "chat";

test.describe.configure({ mode: "serial", timeout: 120_000 });
test.use({ viewport: { width: 1280, height: 900 } });

async function shoot(page: Page, name: string) {
  await page.setViewportSize({ width: 1280, height: 900 });
  await screenshots(page, `stm-${name}`);
}

/** A tRPC mutation with the owner's key; its answer's data. */
async function call(path: string, input: unknown, key = KEY): Promise<unknown> {
  const res = await fetch(`${app}/api/trpc/${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
    body: JSON.stringify({ json: input }),
  });
  const body = (await res.json()) as { result?: { data: { json: unknown } } };
  expect(res.status, `${path}: ${JSON.stringify(body)}`).toBe(200);
  return body.result?.data.json;
}

interface Scope {
  userId: string;
  channelId: string;
  serverId?: string;
  personaId?: string;
}

/** One chat turn: what the user said and the reply. */
const turn = (scope: Scope, said: string, reply: string) =>
  call("stm.capture", {
    dataset: DATASET,
    scope,
    messages: [
      { role: "user", content: said, authorId: scope.userId },
      { role: "assistant", content: reply },
    ],
  });

const alice: Scope = { userId: "alice", serverId: "guild-1", channelId: "general" };
const bob: Scope = { userId: "bob", serverId: "guild-1", channelId: "general" };
const aliceDm: Scope = { userId: "alice", channelId: "dm-alice" };
const carol: Scope = { userId: "carol", serverId: "guild-1", channelId: "random", personaId: "bard" };
const dave: Scope = { userId: "dave", serverId: "guild-1", channelId: "random", personaId: "bard" };

const GENERAL = "shortterm:server:guild-1:general";
const RANDOM = "shortterm:server:guild-1:random:bard";

test.beforeAll(async () => {
  startServer(port, tempDir("e2e-stm"), { GB_AUTH: "on", GB_BOOTSTRAP_EMAIL: EMAIL, GB_BOOTSTRAP_PASSWORD: PASSWORD, GB_BOOTSTRAP_API_KEY: KEY });
  await health(port, 90_000);
  await call("datasets.create", { name: DATASET });
  // guild-1/general: two upgrades of alice's turns, bob writing between them, then one more turn
  await turn(alice, "I want to go to Lisbon this spring.", "Lisbon is lovely in spring!");
  await call("stm.upgrade", { dataset: DATASET, scope: alice, turnId: "t1", summary: "Alice plans a trip to Lisbon.", categories: { destination: "Lisbon", mood: "excited" } });
  await turn(bob, "Count me in, Alice!", "Great, a trip for two.");
  await call("stm.upgrade", {
    dataset: DATASET,
    scope: alice,
    turnId: "t2",
    summary: "Alice and Bob plan a trip to Lisbon in May.",
    categories: { month: "May", mood: "" },
  });
  await turn(alice, "Which neighbourhood should we stay in?", "Alfama, for the views.");
  // a direct message, and guild-1/random with a persona and two writers
  await turn(aliceDm, "Remind me to book the flights.", "I will.");
  await turn(carol, "Tell me a story.", "Once upon a time…");
  await turn(dave, "Another one!", "There was a bard…");
});

test.afterAll(cleanUp);

/** A browser page signed in as the owner (the session cookie in its context). */
async function ownerPage(browser: Browser): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const signIn = await context.request.post(`${app}/api/auth/sign-in/email`, { data: { email: EMAIL, password: PASSWORD }, headers: { origin: app } });
  expect(signIn.status()).toBe(200);
  return context.newPage();
}

const keyLinks = (page: Page) => page.getByTestId("stm-keys").getByRole("link");
const keyLink = (page: Page, key: string) => page.getByTestId("stm-keys").getByRole("link", { name: new RegExp(`^${key.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} `) });

test("find keys by user, read one: messages, summary, categories, cadence and history", async ({ browser }) => {
  const page = await ownerPage(browser);
  await page.goto(`${app}/admin/stm?dataset=${DATASET}`);
  await expect(page.getByRole("heading", { name: "Short-term memory", level: 1 })).toBeVisible();
  await expect(page.getByRole("navigation", { name: "Admin" }).getByRole("link", { name: "Short-term memory" })).toHaveAttribute("aria-current", "page");
  await expect(page.getByTestId("dataset-switcher")).toHaveValue(DATASET);

  await test.step("every key of the dataset, newest first", async () => {
    // alice's and bob's user keys and the server key of general, alice's DM, carol's and dave's user keys and the server key of random
    await expect(keyLinks(page)).toHaveCount(7);
    // the last turn wrote dave's key and the server key of random at once: the same time, then by key, descending
    await expect(keyLinks(page).first()).toContainText("shortterm:user:dave:random:bard");
    await expect(page.getByText("Choose a key to see its messages")).toBeVisible();
    await shoot(page, "all");
  });

  await test.step("a bad id is refused in the form; an unknown user finds nothing", async () => {
    await page.getByLabel("User", { exact: true }).fill("alice smith");
    await page.getByRole("button", { name: "Find" }).click();
    await expect(page.getByLabel("User", { exact: true })).toHaveAttribute("aria-invalid", "true");
    await expect(page.getByText('must not contain ":" or white space')).toBeVisible();
    await page.getByLabel("User", { exact: true }).fill("nobody");
    await page.getByRole("button", { name: "Find" }).click();
    await expect(page).toHaveURL(/user=nobody/);
    await expect(page.getByText("No key matches this filter.")).toBeVisible();
  });

  await test.step("by user: alice's keys and the server key she wrote to", async () => {
    await page.getByLabel("User", { exact: true }).fill("alice");
    await page.getByRole("button", { name: "Find" }).click();
    await expect(page).toHaveURL(/user=alice/);
    await expect(keyLinks(page)).toHaveCount(3);
    for (const key of ["shortterm:user:alice:dm-alice", "shortterm:user:alice:general", GENERAL]) await expect(keyLink(page, key)).toBeVisible();
    await expect(page.getByTestId("stm-keys")).not.toContainText("carol");
  });

  await test.step("the server key of general: its messages, summary, categories, cadence and two versions", async () => {
    await keyLink(page, GENERAL).click();
    await expect(page).toHaveURL(/key=shortterm%3Aserver%3Aguild-1%3Ageneral/);
    await expect(page).toHaveURL(/user=alice/);
    await expect(page.getByTestId("stm-key")).toHaveText(GENERAL);
    await expect(page.getByTestId("stm-entry")).toContainText("server guild-1 · channel general");
    await expect(page.getByTestId("stm-entry")).toContainText("alice, bob");
    await expect(page.getByTestId("stm-version")).toHaveText("2");
    await expect(page.getByTestId("stm-cadence")).toContainText("1 turn since the last upgrade");
    await expect(page.getByTestId("stm-cadence")).toContainText("turn t2");

    const messages = page.getByTestId("stm-messages").getByRole("listitem");
    await expect(messages).toHaveCount(6);
    await expect(messages.first()).toContainText("I want to go to Lisbon this spring.");
    await expect(messages.first()).toContainText("alice");
    await expect(messages.nth(2)).toContainText("bob");
    await expect(messages.nth(3)).toContainText("in bob's turn");
    await expect(messages.last()).toContainText("Alfama, for the views.");

    await expect(page.getByTestId("stm-summary")).toHaveText("Alice and Bob plan a trip to Lisbon in May.");
    const categories = page.getByTestId("stm-categories");
    await expect(categories).toContainText("destination");
    await expect(categories).toContainText("Lisbon");
    await expect(categories).toContainText("May");
    await expect(categories).not.toContainText("excited");

    const versions = page.getByTestId("stm-versions").locator("tbody tr");
    await expect(versions).toHaveCount(2);
    await expect(versions.nth(0)).toContainText("Alice and Bob plan a trip to Lisbon in May.");
    await expect(versions.nth(0)).toContainText("month: Mayadded");
    await expect(versions.nth(0)).toContainText("mood: excitedremoved");
    await expect(versions.nth(0)).toContainText("t2");
    await expect(versions.nth(1)).toContainText("Alice plans a trip to Lisbon.");
    await expect(versions.nth(1)).toContainText("t1");
    await expect(versions.nth(1)).toContainText("by alice");
    await shoot(page, "key");
  });

  await test.step("a key opened from its link alone (a shared link) shows the same", async () => {
    await page.goto(`${app}/admin/stm?dataset=${DATASET}&key=${encodeURIComponent("shortterm:user:alice:dm-alice")}`);
    await expect(page.getByTestId("stm-key")).toHaveText("shortterm:user:alice:dm-alice");
    await expect(page.getByTestId("stm-entry")).toContainText("direct message · channel dm-alice");
    await expect(page.getByText(/^Never upgraded:/)).toBeVisible();
    await expect(page.getByText("No summary yet.")).toBeVisible();
    await expect(page.getByTestId("stm-messages").getByRole("listitem")).toHaveCount(2);
  });
  await page.context().close();
});

test("a viewer's reset is refused, with the reason", async ({ browser }) => {
  const made = (await call("keys.create", { name: "viewer", role: "viewer" })) as { secret: string };
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, extraHTTPHeaders: { authorization: `Bearer ${made.secret}` } });
  const page = await context.newPage();
  await page.goto(`${app}/admin/stm?dataset=${DATASET}&key=${encodeURIComponent(GENERAL)}`);
  await expect(page.getByTestId("stm-key")).toHaveText(GENERAL);
  await page.getByRole("button", { name: "Reset channel" }).click();
  await page.getByRole("button", { name: "Yes, reset" }).click();
  const alert = page.getByRole("main").getByRole("alert");
  await expect(alert).toContainText("Not allowed");
  await expect(page.getByTestId("stm-key")).toHaveText(GENERAL);
  await shoot(page, "refused");
  await context.close();
});

test("reset a channel and forget a user, each confirmed; the list refreshes", async ({ browser }) => {
  const page = await ownerPage(browser);
  await page.goto(`${app}/admin/stm?dataset=${DATASET}&user=alice&key=${encodeURIComponent(GENERAL)}`);
  await expect(page.getByTestId("stm-key")).toHaveText(GENERAL);
  await expect(keyLinks(page)).toHaveCount(3);

  await test.step("Reset channel asks first; Cancel keeps everything", async () => {
    await page.getByRole("button", { name: "Reset channel" }).click();
    await expect(page.getByRole("group", { name: /Reset channel general on server guild-1\?/ })).toBeVisible();
    await shoot(page, "reset-confirm");
    await page.getByRole("button", { name: "Cancel" }).click();
    await expect(keyLinks(page)).toHaveCount(3);
  });

  await test.step("confirmed: the channel's keys are gone, for every user", async () => {
    await page.getByRole("button", { name: "Reset channel" }).click();
    await page.getByRole("button", { name: "Yes, reset" }).click();
    await expect(page.getByTestId("stm-done")).toHaveText("Reset channel general on server guild-1: 3 keys deleted, with 4 versions.");
    await expect(page).not.toHaveURL(/key=/);
    await expect(page.getByTestId("stm-entry")).toHaveCount(0);
    await expect(keyLinks(page)).toHaveCount(1);
    await expect(keyLink(page, "shortterm:user:alice:dm-alice")).toBeVisible();
    await shoot(page, "reset");
    // bob's key of the channel went too
    await page.getByRole("button", { name: "Clear" }).click();
    await expect(page).not.toHaveURL(/user=/);
    await expect(keyLinks(page)).toHaveCount(4);
    await expect(page.getByTestId("stm-keys")).not.toContainText("general");
  });

  await test.step("Forget user on random's server key: carol chosen, confirmed; her keys are gone, dave's stays", async () => {
    await keyLink(page, RANDOM).click();
    await expect(page.getByTestId("stm-key")).toHaveText(RANDOM);
    await expect(page.getByTestId("stm-entry")).toContainText("persona bard");
    await page.getByLabel("User to forget").selectOption("carol");
    await page.getByRole("button", { name: "Forget user" }).click();
    await expect(page.getByRole("group", { name: `Forget carol in ${DATASET}? Their keys and the server keys they wrote to are deleted.` })).toBeVisible();
    await page.getByRole("button", { name: "Yes, forget" }).click();
    await expect(page.getByTestId("stm-done")).toHaveText("Forgot carol: 2 keys deleted, with 0 versions.");
    await expect(page.getByTestId("stm-entry")).toHaveCount(0);
    await expect(keyLinks(page)).toHaveCount(2);
    await expect(page.getByTestId("stm-keys")).not.toContainText("carol");
    await expect(keyLink(page, "shortterm:user:dave:random:bard")).toBeVisible();
    await page.getByLabel("User", { exact: true }).fill("carol");
    await page.getByRole("button", { name: "Find" }).click();
    await expect(page.getByText("No key matches this filter.")).toBeVisible();
    await shoot(page, "forgot");
  });
  await page.context().close();
});

test("a long list pages with Load more; a dataset without STM says how it is written", async ({ browser }) => {
  await call("datasets.create", { name: "many" });
  for (let i = 0; i < 55; i++) {
    await call("stm.capture", { dataset: "many", scope: { userId: `u${i}`, channelId: "dm" }, messages: [{ role: "user", content: `hello ${i}` }] });
  }
  await call("datasets.create", { name: "quiet" });
  const page = await ownerPage(browser);
  await page.goto(`${app}/admin/stm?dataset=many`);
  await expect(keyLinks(page)).toHaveCount(50);
  await expect(page.getByRole("heading", { name: "Keys (50+)" })).toBeVisible();
  await page.getByRole("button", { name: "Load more" }).click();
  await expect(keyLinks(page)).toHaveCount(55);
  await expect(page.getByRole("button", { name: "Load more" })).toHaveCount(0);
  await expect(keyLinks(page).last()).toContainText("shortterm:user:u0:dm");

  await page.getByTestId("dataset-switcher").selectOption("quiet");
  await expect(page).toHaveURL(/dataset=quiet/);
  await expect(page.getByText("No short-term memory in quiet yet")).toBeVisible();
  await shoot(page, "empty");
  await page.context().close();
});
