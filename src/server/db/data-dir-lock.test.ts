import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { spawnStartupChild, type StartupChild, waitForLine } from "../../test/startup-child-process";
import { openDatabase } from "./client";
import { LOCK_FILE, lockDataDir } from "./data-dir-lock";
import { StartupError } from "./startup-error";

/*
 * One process per PGlite data dir: a live owner (another process, or this one) is a clear error
 * naming it; a stale lock (its process killed, its pid reused, another host's gone quiet) is
 * taken over without a word.
 */

const dirs: string[] = [];
const children: StartupChild[] = [];
afterEach(async () => {
  for (const c of children.splice(0)) {
    if (c.proc.exitCode === null && c.proc.signalCode === null) c.proc.kill("SIGKILL");
    await c.exited;
  }
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), "gb-lock-"));
  dirs.push(dir);
  return dir;
}

/** The pid of a process that has exited. */
async function deadPid(): Promise<number> {
  const proc = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
  await new Promise((r) => proc.on("exit", r));
  return proc.pid!;
}

interface LockContent {
  pid: number;
  host: string;
  machine: string;
  started: string | null;
  token: string;
}

/** A lock file as this process writes it, edited by `edit`, left in `dir` with nobody holding it. */
async function leaveLock(dir: string, edit: (content: LockContent) => Partial<LockContent>): Promise<string> {
  mkdirSync(dir, { recursive: true });
  const lock = await lockDataDir(dir);
  const content = JSON.parse(readFileSync(lock.file, "utf8")) as LockContent;
  lock.release();
  writeFileSync(lock.file, JSON.stringify({ ...content, ...edit(content) }));
  return lock.file;
}

const lockPid = (file: string) => (JSON.parse(readFileSync(file, "utf8")) as LockContent).pid;

describe("the PGlite data dir lock, between processes", () => {
  it("a second process on a data dir in use: an error naming the first's pid; free again once it closes", async () => {
    const dir = path.join(tempDir(), "pglite");
    const holder = spawnStartupChild("hold", { STARTUP_CHILD_DATA_DIR: dir });
    children.push(holder);
    await waitForLine(holder, "ready");

    const err = await openDatabase({ driver: "pglite", dataDir: dir }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StartupError);
    const message = (err as Error).message;
    expect(message).toContain("another process is using the PGlite data dir");
    expect(message).toContain(`where: ${dir}`);
    expect(message).toContain(`process ${holder.proc.pid} holds it (${path.join(dir, LOCK_FILE)})`);
    expect(message).toContain(`is another gligabao process (pid ${holder.proc.pid}`);

    holder.proc.kill("SIGTERM");
    expect(await holder.exited).toBe(0);
    expect(existsSync(path.join(dir, LOCK_FILE))).toBe(false);
    const database = await openDatabase({ driver: "pglite", dataDir: dir });
    await database.close();
  }, 60_000);

  it("after kill -9 the stale lock is taken over at once, and released on close", async () => {
    const dir = path.join(tempDir(), "pglite");
    const holder = spawnStartupChild("hold", { STARTUP_CHILD_DATA_DIR: dir });
    children.push(holder);
    await waitForLine(holder, "ready");
    holder.proc.kill("SIGKILL");
    await holder.exited;
    const file = path.join(dir, LOCK_FILE);
    expect(lockPid(file)).toBe(holder.proc.pid);

    const database = await openDatabase({ driver: "pglite", dataDir: dir });
    expect(lockPid(file)).toBe(process.pid);
    await database.close();
    expect(existsSync(file)).toBe(false);
  }, 60_000);

  it("processes taking over one stale lock at once: exactly one opens, the others name it", async () => {
    const dir = path.join(tempDir(), "pglite");
    const dead = await deadPid();
    await leaveLock(dir, () => ({ pid: dead, started: null }));
    const racers = Array.from({ length: 4 }, () => spawnStartupChild("hold", { STARTUP_CHILD_DATA_DIR: dir }));
    children.push(...racers);
    const deadline = Date.now() + 45_000;
    while (racers.filter((r) => r.proc.exitCode !== null).length < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    const [winner, ...losers] = [...racers].sort((a, b) => Number(a.proc.exitCode !== null) - Number(b.proc.exitCode !== null));
    await waitForLine(winner!, "ready");
    for (const loser of losers) {
      expect(loser.proc.exitCode).not.toBe(0);
      expect(loser.stderr()).toContain(`process ${winner!.proc.pid} holds it`);
    }
    expect(lockPid(path.join(dir, LOCK_FILE))).toBe(winner!.proc.pid);
  }, 60_000);
});

describe("the PGlite data dir lock, its judgements", () => {
  it("this process twice: an error saying so", async () => {
    const dir = tempDir();
    const lock = await lockDataDir(dir);
    try {
      const err = await lockDataDir(dir).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(StartupError);
      expect((err as Error).message).toContain("this process has it open already");
      expect((err as Error).message).toContain("close the database this process opened on it first");
    } finally {
      lock.release();
    }
    expect(existsSync(lock.file)).toBe(false);
  });

  it("a lock of this pid that this process does not hold (a restarted container's pid 1): stale", async () => {
    const dir = tempDir();
    await leaveLock(dir, () => ({}));
    const lock = await lockDataDir(dir);
    lock.release();
  });

  it("a dead pid: taken over", async () => {
    const dir = tempDir();
    const dead = await deadPid();
    const file = await leaveLock(dir, () => ({ pid: dead }));
    const lock = await lockDataDir(dir);
    expect(lockPid(file)).toBe(process.pid);
    lock.release();
  });

  it("a live pid that started at another time (the pid was reused): taken over", async () => {
    const dir = tempDir();
    await leaveLock(dir, () => ({ pid: process.ppid, started: "1" }));
    const lock = await lockDataDir(dir);
    lock.release();
  });

  it("another host or container: live while it refreshes the lock, stale 30 s after", async () => {
    const dir = tempDir();
    const file = await leaveLock(dir, () => ({ pid: 1, host: "elsewhere", machine: "elsewhere|boot|pid:[1]" }));
    const err = await lockDataDir(dir).catch((e: unknown) => e);
    expect((err as Error).message).toContain("process 1 on elsewhere (another host or container) holds it");
    expect((err as Error).message).toContain("pid 1 on elsewhere");
    const old = new Date(Date.now() - 31_000);
    utimesSync(file, old, old);
    const lock = await lockDataDir(dir);
    expect(lockPid(file)).toBe(process.pid);
    lock.release();
  });

  it("an unreadable lock file: taken over once it is old enough not to be one being written", async () => {
    const dir = tempDir();
    const file = path.join(dir, LOCK_FILE);
    writeFileSync(file, "");
    const old = new Date(Date.now() - 11_000);
    utimesSync(file, old, old);
    const lock = await lockDataDir(dir);
    expect(lockPid(file)).toBe(process.pid);
    lock.release();
  });

  it("several takeovers of one stale lock at once in this process: one wins", async () => {
    const dir = tempDir();
    const dead = await deadPid();
    await leaveLock(dir, () => ({ pid: dead, started: null }));
    const results = await Promise.allSettled(Array.from({ length: 5 }, () => lockDataDir(dir)));
    const won = results.flatMap((r) => (r.status === "fulfilled" ? [r.value] : []));
    expect(won).toHaveLength(1);
    for (const r of results) if (r.status === "rejected") expect(r.reason).toBeInstanceOf(StartupError);
    won[0]!.release();
  });
});
