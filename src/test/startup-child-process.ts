import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";

/** A running src/test/startup-child.ts: its output so far and its exit. */
export interface StartupChild {
  proc: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  /** the exit code (null when killed by a signal) */
  exited: Promise<number | null>;
}

const CHILD = path.resolve("src/test/startup-child.ts");

/**
 * Starts src/test/startup-child.ts in `mode` with exactly `env` (plus PATH), so that nothing of
 * the test run's environment (DATABASE_URL…) leaks into it. `uid`: run as that user (root only).
 */
export function spawnStartupChild(mode: "init" | "hold", env: Record<string, string>, options: { uid?: number } = {}): StartupChild {
  const proc: ChildProcess = spawn(process.execPath, ["--import", "tsx", CHILD, mode], {
    env: { PATH: process.env.PATH ?? "", NODE_ENV: "test", ...env },
    stdio: ["ignore", "pipe", "pipe"],
    uid: options.uid,
    gid: options.uid,
  });
  let out = "";
  let err = "";
  proc.stdout?.on("data", (d: Buffer) => (out += d.toString()));
  proc.stderr?.on("data", (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((resolve) => proc.on("exit", (code) => resolve(code)));
  return { proc, stdout: () => out, stderr: () => err, exited };
}

/** Waits until `child` prints `line`; fails with its stderr if it exits or takes too long. */
export async function waitForLine(child: StartupChild, line: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!child.stdout().split("\n").includes(line)) {
    if (child.proc.exitCode !== null || Date.now() > deadline) {
      throw new Error(`no "${line}" from the child (exit ${child.proc.exitCode}); stderr: ${child.stderr().slice(-2000)}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}
