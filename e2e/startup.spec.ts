import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { cleanUp, exitWithin, health, startServer, tempDir } from "./server";
import { ports } from "./ports";

/*
 * Start-up of the built server (`next start`), no browser. A data dir that cannot be opened
 * stops the server with exit code 1 and the reason on stderr (before: a server answering 500
 * forever); a symlinked data dir just works; a second server on a data dir in use stops naming
 * the first; a server killed with SIGKILL leaves a lock that the next start takes over.
 */

test.afterEach(cleanUp);

test("a GB_DATA_DIR that is a regular file: exit code 1 within seconds, and what to do on stderr", async () => {
  const file = path.join(tempDir("e2e-startup"), "data");
  writeFileSync(file, "not a directory");
  const started = Date.now();
  const server = startServer(ports.startup[0], file);
  expect(await exitWithin(server, 20_000)).toBe(1);
  expect(Date.now() - started).toBeLessThan(20_000);
  expect(server.stderr()).toContain(
    [
      "gligabao could not start: could not open the PGlite data dir",
      `  where: ${file}/pglite`,
      `  reason: ENOTDIR: not a directory, mkdir '${file}/pglite'`,
      `  what to do: ${file} is a file, not a directory: point GB_DATA_DIR at a directory (it is made if missing)`,
    ].join("\n"),
  );
});

test("a symlinked data dir serves; a second server on it stops naming the first; after kill -9 the next one starts", async () => {
  test.setTimeout(180_000);
  const root = tempDir("e2e-startup");
  // GB_DATA_DIR is a symlink, and its pglite is one too (the crash-looping case of issue #10)
  mkdirSync(path.join(root, "data"));
  mkdirSync(path.join(root, "store"));
  symlinkSync(path.join(root, "data"), path.join(root, "data-link"));
  symlinkSync(path.join(root, "store"), path.join(root, "data", "pglite"));
  const dataDir = path.join(root, "data-link");

  const first = startServer(ports.startup[1], dataDir);
  expect(await health(3112, 90_000)).toMatchObject({ ok: true, db: "pglite" });
  const owner = (JSON.parse(readFileSync(path.join(root, "store", "gligabao.lock"), "utf8")) as { pid: number }).pid;
  expect(owner).toBe(first.proc.pid);

  const second = startServer(ports.startup[2], dataDir);
  expect(await exitWithin(second, 20_000)).toBe(1);
  expect(second.stderr()).toContain("gligabao could not start: another process is using the PGlite data dir");
  expect(second.stderr()).toContain(`  where: ${path.join(root, "store")}`);
  expect(second.stderr()).toContain(`is another gligabao process (pid ${owner} on`);

  first.proc.kill("SIGKILL");
  await first.exited;
  const third = startServer(ports.startup[3], dataDir);
  expect(await health(3114, 60_000)).toMatchObject({ ok: true, db: "pglite" });
  third.proc.kill("SIGTERM");
});
