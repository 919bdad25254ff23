import { defineConfig } from "@playwright/test";
import { ports } from "./e2e/ports";

const port = ports.app;
/** the app with auth on: admin.spec.ts */
const authPort = ports.auth;
/** the app on the openai provider, against the loopback fake model server: runs.spec.ts */
const modelsPort = ports.models;
const fakeModelPort = ports.fakeModel;
const serverEnv = { GB_MODELS: "builtin", NEXT_TELEMETRY_DISABLED: "1", DATABASE_URL: "", OPENAI_API_KEY: "" };

/*
 * End-to-end tests against the built app (`npm run build` first; `npm run test:e2e` does both),
 * in Debian's Chromium. The app runs on fresh PGlite data dirs with builtin models.
 */
export default defineConfig({
  testDir: "e2e",
  fullyParallel: false,
  workers: 1,
  retries: 0,
  reporter: process.env.CI ? [["list"], ["json", { outputFile: "reports/e2e.json" }]] : "list",
  use: {
    baseURL: `http://127.0.0.1:${port}`,
    screenshot: "only-on-failure",
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
    },
  },
  // Three servers of the one build (ports from e2e/ports.ts): E2E_PORT with auth off (the specs
  // that use baseURL), +1 with auth on and no account yet (admin.spec.ts), +2 on GB_MODELS=openai against a loopback fake
  // model server whose markers make failed, flagged and slow runs (e2e/fake-model-server.ts).
  webServer: [
    {
      // node …/next directly, so that the pid Playwright stops is the server's (STACK-NOTES)
      command: `rm -rf .test-data/e2e && node node_modules/next/dist/bin/next start -H 127.0.0.1 -p ${port}`,
      url: `http://127.0.0.1:${port}/api/health`,
      timeout: 120_000,
      reuseExistingServer: false,
      env: { ...serverEnv, GB_DATA_DIR: ".test-data/e2e", GB_AUTH: "off" },
    },
    {
      command: `rm -rf .test-data/e2e-auth && node node_modules/next/dist/bin/next start -H 127.0.0.1 -p ${authPort}`,
      url: `http://127.0.0.1:${authPort}/api/health`,
      timeout: 120_000,
      reuseExistingServer: false,
      env: { ...serverEnv, GB_DATA_DIR: ".test-data/e2e-auth", GB_AUTH: "on" },
    },
    {
      command: `node --import tsx e2e/fake-model-server.ts`,
      port: fakeModelPort,
      timeout: 30_000,
      reuseExistingServer: false,
      env: { FAKE_MODEL_PORT: String(fakeModelPort) },
    },
    {
      command: `rm -rf .test-data/e2e-models && node node_modules/next/dist/bin/next start -H 127.0.0.1 -p ${modelsPort}`,
      url: `http://127.0.0.1:${modelsPort}/api/health`,
      timeout: 120_000,
      reuseExistingServer: false,
      env: {
        ...serverEnv,
        GB_DATA_DIR: ".test-data/e2e-models",
        GB_AUTH: "off",
        GB_MODELS: "openai",
        OPENAI_API_KEY: "sk-e2e",
        OPENAI_BASE_URL: `http://127.0.0.1:${fakeModelPort}/v1`,
        GB_MODEL_MAX_RETRIES: "0",
        // a run that met an outage ([flaky-extract]) is tried again soon
        GB_REMEMBER_RETRY_BASE_MS: "200",
      },
    },
  ],
});
