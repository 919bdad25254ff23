import { chmodSync, existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { sql } from "drizzle-orm";
import { afterEach, describe, expect, inject, it } from "vitest";
import { spawnStartupChild } from "../../test/startup-child-process";
import { openDatabase } from "./client";
import { LOCK_FILE } from "./data-dir-lock";
import { StartupError } from "./startup-error";

/*
 * A database that cannot be opened is one clear StartupError: what failed, where (the resolved
 * data dir, or the server without its password), the reason and what to do. A symlinked data
 * dir is no failure: it is resolved before PGlite sees it.
 */

const pgUrl = inject("pgUrl");
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  // realpath: macOS's tmpdir is itself behind a symlink, and messages name resolved paths
  const dir = realpathSync(mkdtempSync(path.join(tmpdir(), "gb-open-")));
  dirs.push(dir);
  return dir;
}

async function openError(opts: Parameters<typeof openDatabase>[0]): Promise<StartupError> {
  const err = await openDatabase(opts).then(
    async (d) => {
      await d.close();
      return new Error("it opened");
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(StartupError);
  return err as StartupError;
}

describe("opening a PGlite data dir", () => {
  it("a data dir inside a regular file (GB_DATA_DIR is a file): names the file", async () => {
    const file = path.join(tempDir(), "data");
    writeFileSync(file, "not a directory");
    const err = await openError({ driver: "pglite", dataDir: path.join(file, "pglite") });
    expect(err.message).toBe(
      [
        "could not open the PGlite data dir",
        `  where: ${path.join(file, "pglite")}`,
        `  reason: ENOTDIR: not a directory, mkdir '${path.join(file, "pglite")}'`,
        `  what to do: ${file} is a file, not a directory: point GB_DATA_DIR at a directory (it is made if missing)`,
      ].join("\n"),
    );
  });

  it("a data dir that is a regular file itself", async () => {
    const file = path.join(tempDir(), "pglite");
    writeFileSync(file, "");
    const err = await openError({ driver: "pglite", dataDir: file });
    expect(err.where).toBe(file);
    expect(err.todo).toContain(`${file} is a file, not a directory`);
  });

  it("a data dir this user cannot write: says so, with the user", async () => {
    const root = tempDir();
    const dir = path.join(root, "pglite");
    mkdirSync(dir);
    chmodSync(root, 0o755);
    if (process.getuid?.() === 0) {
      // root writes anywhere: the start-up of a process of an unprivileged user instead
      chmodSync(dir, 0o755);
      const child = spawnStartupChild("init", { GB_DATA_DIR: root, GB_MODELS: "builtin" }, { uid: 65534 });
      expect(await child.exited).toBe(1);
      expect(child.stderr()).toContain(
        [
          "gligabao could not start: could not open the PGlite data dir",
          `  where: ${dir}`,
          `  reason: EACCES: permission denied, open '${path.join(dir, LOCK_FILE)}'`,
          "  what to do: the directory is not writable by this user (uid 65534): fix its owner or permissions, or set GB_DATA_DIR to a writable directory",
        ].join("\n"),
      );
    } else {
      chmodSync(dir, 0o555);
      const err = await openError({ driver: "pglite", dataDir: dir });
      expect(err.reason).toContain("EACCES");
      expect(err.todo).toContain("the directory is not writable by this user");
    }
  }, 30_000);

  it("a symlinked GB_DATA_DIR whose pglite is a symlink too: opens on the resolved directory", async () => {
    const root = tempDir();
    const [outer, inner] = [path.join(root, "outer"), path.join(root, "inner")];
    mkdirSync(outer);
    mkdirSync(inner);
    symlinkSync(outer, path.join(root, "data"));
    symlinkSync(inner, path.join(outer, "pglite"));

    const database = await openDatabase({ driver: "pglite", dataDir: path.join(root, "data", "pglite") });
    try {
      expect(database.location).toBe(inner);
      expect(await database.db.execute(sql`SELECT 1 AS one`)).toBeTruthy();
      expect(existsSync(path.join(inner, "PG_VERSION"))).toBe(true);
      expect(existsSync(path.join(inner, LOCK_FILE))).toBe(true);
    } finally {
      await database.close();
    }
    expect(existsSync(path.join(inner, LOCK_FILE))).toBe(false);
  }, 30_000);
});

/** A loopback port nothing listens on: one the system just gave and took back. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return port;
}

describe("connecting to a Postgres server", () => {
  it("nothing listening (connection refused): asks whether the server runs, and never shows the password", async () => {
    const port = await closedPort();
    const err = await openError({ driver: "postgres", url: `postgres://gb:s3cret-pw@127.0.0.1:${port}/gligabao?sslmode=disable` });
    expect(err.message).toBe(
      [
        "could not connect to the Postgres server",
        `  where: postgres://gb:***@127.0.0.1:${port}/gligabao?sslmode=disable`,
        `  reason: connect ECONNREFUSED 127.0.0.1:${port}`,
        "  what to do: is the Postgres server running, and listening at that host and port? Check DATABASE_URL",
      ].join("\n"),
    );
    expect(err.message).not.toContain("s3cret");
  });

  it.skipIf(!pgUrl)("a database that does not exist: says to create it", async () => {
    const url = new URL(pgUrl!);
    url.pathname = "/gb_no_such_database";
    const err = await openError({ driver: "postgres", url: url.toString() });
    expect(err.reason).toBe('database "gb_no_such_database" does not exist (3D000)');
    expect(err.todo).toContain("create it (createdb), or fix its name in DATABASE_URL");
  });
});
