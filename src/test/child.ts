import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";

/** A test program (src/test/*-child.ts) run in a process of its own with tsx, its output collected. */
export interface Child {
  proc: ChildProcess;
  /** stdout, line by line */
  lines: string[];
  stderr: string[];
  /** the exit code, or null when a signal ended it */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export function spawnChild(program: string, env: Record<string, string>): Child {
  const proc = spawn(process.execPath, ["--import", "tsx", path.resolve(program)], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const lines: string[] = [];
  const stderr: string[] = [];
  let buf = "";
  proc.stdout?.on("data", (d: Buffer) => {
    buf += d.toString();
    const parts = buf.split("\n");
    buf = parts.pop() ?? "";
    lines.push(...parts);
  });
  proc.stderr?.on("data", (d: Buffer) => stderr.push(d.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    proc.on("exit", (code, signal) => resolve({ code, signal })),
  );
  return { proc, lines, stderr, exited };
}

/** Resolves when the child has printed `line`; rejects after timeoutMs, or when the child exits first. */
export async function waitForLine(child: Child, line: string, timeoutMs = 30_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!child.lines.includes(line)) {
    if (child.proc.exitCode !== null || child.proc.signalCode !== null) {
      throw new Error(`the child exited before printing "${line}" (stderr: ${child.stderr.join("").slice(-2000)})`);
    }
    if (Date.now() > end) throw new Error(`timed out waiting for "${line}" from the child (stderr: ${child.stderr.join("").slice(-2000)})`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Kills what is still running (SIGKILL) and waits for it. */
export async function reap(children: Child[]): Promise<void> {
  for (const c of children.splice(0)) {
    if (c.proc.exitCode === null && c.proc.signalCode === null) c.proc.kill("SIGKILL");
    await c.exited;
  }
}
