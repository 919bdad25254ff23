// Prints one plain line, "N passed, N failed", from vitest's and Playwright's JSON reports, so
// that CI reads a test count (vitest's own summary is not a line CI recognises).
import { existsSync, readFileSync } from "node:fs";

let passed = 0;
let failed = 0;
let skipped = 0;
if (existsSync("reports/unit.json")) {
  const r = JSON.parse(readFileSync("reports/unit.json", "utf8"));
  passed += r.numPassedTests;
  failed += r.numFailedTests;
  skipped += r.numPendingTests + (r.numTodoTests ?? 0);
}
if (existsSync("reports/e2e.json")) {
  const s = JSON.parse(readFileSync("reports/e2e.json", "utf8")).stats;
  passed += s.expected;
  failed += s.unexpected + (s.flaky ?? 0);
  skipped += s.skipped;
}
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
