import { randomUUID } from "node:crypto";
import { mkdirSync, readFileSync, readlinkSync, rmdirSync, statSync, unlinkSync, utimesSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import path from "node:path";
import { StartupError } from "./startup-error";

/*
 * One process per PGlite data dir: two PGlite instances writing one directory corrupt it, and
 * PGlite does not stop that itself. The owner is written to `<data dir>/gligabao.lock` (pid,
 * host, start time). A lock whose process is gone (kill -9, a crash, a container restarted with
 * the same pid) is stale and taken over at once, so a restart after a crash never blocks.
 *
 * Hand-written rather than a lock-file package: those (proper-lockfile and the like) judge
 * staleness by an mtime timeout alone, so a restart after kill -9 would wait that timeout out;
 * a pid check lets it start at once. The mtime heartbeat below is only for an owner whose pid
 * means nothing here: another host, or another container (pid namespace), sharing the directory.
 */

export const LOCK_FILE = "gligabao.lock";
const HEARTBEAT_MS = 10_000;
/** a lock from another host or container, untouched this long, is stale */
const FOREIGN_STALE_MS = 30_000;
/** an unreadable lock file this young is being written (create, then write); older, it is junk */
const WRITING_MS = 10_000;

interface Owner {
  pid: number;
  host: string;
  /** host, boot and pid namespace: the owner's pid can be checked only from the same one */
  machine: string;
  /** the process's start (Linux), so that a reused pid is not taken for the owner */
  started: string | null;
  token: string;
}

export interface DataDirLock {
  readonly file: string;
  /** writes our lock again (loading a dump into the data dir may have replaced it) */
  rewrite(): void;
  /** removes the lock file if it is still ours; never throws */
  release(): void;
}

// Locks this process holds, on globalThis: Next bundles this module more than once, and two
// copies must still see each other's locks.
const holder = globalThis as unknown as { __gbDataDirLocks?: Set<string> };
const held = (holder.__gbDataDirLocks ??= new Set<string>());

function readOr(file: string, fallback: string): string {
  try {
    return readFileSync(file, "utf8").trim();
  } catch {
    return fallback;
  }
}

const machine = `${hostname()}|${readOr("/proc/sys/kernel/random/boot_id", "")}|${(() => {
  try {
    return readlinkSync("/proc/self/ns/pid");
  } catch {
    return "";
  }
})()}`;

/** The start time of a process in clock ticks since boot (field 22 of /proc/<pid>/stat); null off Linux. */
function startTime(pid: number): string | null {
  const stat = readOr(`/proc/${pid}/stat`, "");
  // the command name (field 2) may hold spaces and parentheses: count from its closing one
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return fields[19] ?? null;
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: it exists, it is another user's
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

function parseOwner(raw: string): Owner | null {
  try {
    const o = JSON.parse(raw) as Partial<Owner>;
    return typeof o.pid === "number" && typeof o.machine === "string" && typeof o.token === "string"
      ? { pid: o.pid, host: o.host ?? "?", machine: o.machine, started: o.started ?? null, token: o.token }
      : null;
  } catch {
    return null;
  }
}

type Judgement = { live: string } | "stale" | "retry";

/** Whether the lock in `file`, read as `raw`, is live (and why), stale, or to look at again. */
function judge(file: string, raw: string): Judgement {
  const stat = statSync(file, { throwIfNoEntry: false });
  if (!stat) return "retry"; // its owner just released it
  const age = Date.now() - stat.mtimeMs;
  const owner = parseOwner(raw);
  if (!owner) return age < WRITING_MS ? "retry" : "stale";
  if (owner.machine !== machine) {
    if (age >= FOREIGN_STALE_MS) return "stale";
    const seconds = Math.round(age / 1000);
    return { live: `process ${owner.pid} on ${owner.host} (another host or container) holds it; it refreshed the lock ${seconds} s ago, and it counts as gone ${FOREIGN_STALE_MS / 1000} s after` };
  }
  if (owner.pid === process.pid) return held.has(file) ? { live: "this process has it open already" } : "stale";
  if (!pidAlive(owner.pid)) return "stale";
  const now = startTime(owner.pid);
  if (owner.started && now && now !== owner.started) return "stale"; // the pid was reused
  return { live: `process ${owner.pid} holds it` };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Removes the stale lock whose content was `raw`, if it is still that one. Under a guard
 * directory, so that two processes taking over at once cannot remove each other's new lock.
 */
async function removeStale(file: string, raw: string): Promise<void> {
  const guard = `${file}.takeover`;
  try {
    mkdirSync(guard);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
    const stat = statSync(guard, { throwIfNoEntry: false });
    // a guard left by a process that died within the few ms it holds one
    if (stat && Date.now() - stat.mtimeMs > WRITING_MS) rmdirSync(guard);
    else await sleep(20);
    return;
  }
  try {
    if (readOr(file, "") === raw) unlinkSync(file);
  } finally {
    rmdirSync(guard);
  }
}

function inUse(dir: string, file: string, raw: string, why: string): StartupError {
  const owner = parseOwner(raw);
  const ours = owner?.pid === process.pid && owner.machine === machine;
  return new StartupError({
    what: "another process is using the PGlite data dir",
    where: dir,
    reason: `${why} (${file})`,
    todo: ours
      ? "close the database this process opened on it first (a data dir admits one PGlite at a time)"
      : `is another gligabao process${owner ? ` (pid ${owner.pid} on ${owner.host})` : ""} using this data dir? Stop it, or give this one a GB_DATA_DIR of its own: a PGlite data dir admits one process`,
  });
}

/**
 * Takes the data dir `dir` (an existing, resolved directory) for this process, taking over a
 * stale lock. Throws StartupError when a live process holds it; file-system errors (not
 * writable…) are thrown as they are, for the caller to explain.
 */
export async function lockDataDir(dir: string): Promise<DataDirLock> {
  const file = path.join(dir, LOCK_FILE);
  const me: Owner = { pid: process.pid, host: hostname(), machine, started: startTime(process.pid), token: randomUUID() };
  const content = `${JSON.stringify(me)}\n`;
  // a lock being written or taken over settles within WRITING_MS; past twice that, give up
  const deadline = Date.now() + 2 * WRITING_MS;
  for (;;) {
    try {
      writeFileSync(file, content, { flag: "wx" });
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
    }
    if (Date.now() > deadline) throw new Error(`could not take ${file}: it kept changing`);
    const raw = readOr(file, "");
    const judgement = judge(file, raw);
    if (judgement === "retry") await sleep(20);
    else if (judgement === "stale") await removeStale(file, raw);
    else throw inUse(dir, file, raw, judgement.live);
  }
  held.add(file);
  // unref'd: the heartbeat never keeps the process up
  const beat = setInterval(() => {
    const now = new Date();
    try {
      utimesSync(file, now, now);
    } catch {
      // a missed beat only makes the lock look older to another host
    }
  }, HEARTBEAT_MS).unref();
  return {
    file,
    rewrite: () => writeFileSync(file, content),
    release() {
      clearInterval(beat);
      held.delete(file);
      try {
        if (readFileSync(file, "utf8") === content) unlinkSync(file);
      } catch {
        // already gone
      }
    },
  };
}
