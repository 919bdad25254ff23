import { defineConfig } from "vitest/config";
import path from "node:path";

export default defineConfig({
  resolve: { alias: { "@": path.resolve(import.meta.dirname, "src") } },
  test: {
    include: ["src/**/*.test.ts", "scripts/**/*.test.ts"],
    globalSetup: ["./src/test/global-setup.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // PGlite is single-threaded WASM; two cores here, so two workers.
    maxWorkers: 2,
    // One module graph per worker, not per file, as in the server, where modules outlive requests:
    // the suite took 429 s isolated and 350-399 s without on one machine (imports 77 s -> 11 s).
    // A test must not rely on being the first in its process to load something (broader.test.ts),
    // nor leave a spy behind; a module state that leaks from one file into another is a bug found.
    isolate: false,
    reporters: process.env.CI ? ["default", ["json", { outputFile: "reports/unit.json" }]] : ["default"],
  },
});
