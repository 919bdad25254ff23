import { expect, test } from "@playwright/test";
import { cleanUp, health, startServer, tempDir } from "./server";
import { ports } from "./ports";

/*
 * The built server (`next start`) as a hostile client meets it: the sign-in limit counts the
 * connection, not a forged X-Forwarded-For (unless GB_TRUST_PROXY says a proxy writes it); a
 * signed-in session cannot write from another site's page; every answer carries the security
 * headers, and the pages run under that CSP without a violation.
 */

test.afterEach(cleanUp);
// each test starts a server of its own (PGlite's cold start, a machine under load)
test.describe.configure({ timeout: 180_000 });

const EMAIL = "owner@example.com";
const PASSWORD = "correct horse battery";
const AUTH_ENV = { GB_AUTH: "on", GB_BOOTSTRAP_EMAIL: EMAIL, GB_BOOTSTRAP_PASSWORD: PASSWORD };

function signIn(base: string, password: string, forwardedFor?: string) {
  return fetch(`${base}/api/auth/sign-in/email`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: base, ...(forwardedFor ? { "x-forwarded-for": forwardedFor } : {}) },
    body: JSON.stringify({ email: EMAIL, password }),
  });
}

async function wrongTries(base: string, forwardedFor: (i: number) => string): Promise<number[]> {
  const statuses = [];
  for (let i = 0; i < 12; i++) statuses.push((await signIn(base, "wrong password!", forwardedFor(i))).status);
  return statuses;
}

test("the sign-in limit counts the connection: a new X-Forwarded-For on each try does not reset it", async () => {
  const port = ports.hardening[0];
  const base = `http://127.0.0.1:${port}`;
  startServer(port, tempDir("e2e-signin"), AUTH_ENV);
  await health(port, 90_000);
  const statuses = await wrongTries(base, (i) => `198.51.100.${i + 1}`);
  expect(statuses.slice(0, 10).every((s) => s === 401)).toBe(true);
  expect(statuses.slice(10)).toEqual([429, 429]);
});

test("GB_TRUST_PROXY=1: the proxy's X-Forwarded-For names the client, one budget each", async () => {
  const port = ports.hardening[1];
  const base = `http://127.0.0.1:${port}`;
  startServer(port, tempDir("e2e-proxy"), { ...AUTH_ENV, GB_TRUST_PROXY: "1" });
  await health(port, 90_000);
  // twelve clients behind the proxy, one wrong try each: none is limited
  expect(new Set(await wrongTries(base, (i) => `198.51.100.${i + 1}`))).toEqual(new Set([401]));
  // one client twelve times is
  expect((await wrongTries(base, () => "203.0.113.5")).slice(10)).toEqual([429, 429]);
  // what the client wrote left of the proxy's entry changes nothing
  expect((await signIn(base, "wrong password!", "1.2.3.4, 203.0.113.5")).status).toBe(429);
});

test("a session writes only from the app's own pages; every answer has the security headers", async ({ page }) => {
  const port = ports.hardening[2];
  const base = `http://127.0.0.1:${port}`;
  startServer(port, tempDir("e2e-csrf"), AUTH_ENV);
  await health(port, 90_000);
  const res = await signIn(base, PASSWORD);
  expect(res.status).toBe(200);
  const cookie = res.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
  const create = (origin: string) =>
    fetch(`${base}/api/trpc/datasets.create`, {
      method: "POST",
      headers: { "content-type": "application/json", cookie, origin },
      body: JSON.stringify({ json: { name: `from-${new URL(origin).hostname.replace(/\W/g, "-")}` } }),
    });
  const cross = await create("https://evil.example");
  expect(cross.status).toBe(403);
  expect(await cross.text()).toContain("another site");
  expect((await create(base)).status).toBe(200);

  for (const path of ["/", "/admin", "/api/health", "/api/trpc/system.health", "/no-such-page"]) {
    const r = await fetch(`${base}${path}`, { headers: { cookie } });
    const csp = r.headers.get("content-security-policy") ?? "";
    expect(csp, path).toContain("frame-ancestors 'none'");
    expect(csp, path).toContain("default-src 'self'");
    expect(r.headers.get("x-content-type-options"), path).toBe("nosniff");
    expect(r.headers.get("referrer-policy"), path).toBe("strict-origin-when-cross-origin");
  }

  // the pages run under the policy: no violation while they load and draw
  const violations: string[] = [];
  page.on("console", (m) => {
    if (/Content Security Policy|Refused to/i.test(m.text())) violations.push(m.text());
  });
  // the browser signs in too: its context keeps the session cookie
  const browserSignIn = await page.request.post(`${base}/api/auth/sign-in/email`, { data: { email: EMAIL, password: PASSWORD }, headers: { origin: base } });
  expect(browserSignIn.status()).toBe(200);
  for (const path of ["/admin", "/admin/graph", "/admin/playground"]) {
    await page.goto(`${base}${path}`);
    await page.waitForLoadState("networkidle");
  }
  await expect(page.getByRole("heading").first()).toBeVisible();
  expect(violations).toEqual([]);
});
