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
    reporters: process.env.CI ? ["default", ["json", { outputFile: "reports/unit.json" }]] : ["default"],
  },
});
