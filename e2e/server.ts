import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import path from "node:path";

/** Built servers (`next start`) that a spec starts and stops itself, no browser. */

export interface Server {
  proc: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  /** the exit code (null when a signal ended it) */
  exited: Promise<number | null>;
}

const servers: Server[] = [];
const dirs: string[] = [];

/** Kills the servers still up and removes the temporary dirs; call in afterEach. */
export async function cleanUp(): Promise<void> {
  for (const s of servers.splice(0)) {
    if (s.proc.exitCode === null && s.proc.signalCode === null) s.proc.kill("SIGKILL");
    await s.exited;
  }
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
}

export function tempDir(prefix: string): string {
  mkdirSync(".test-data", { recursive: true });
  const dir = path.resolve(mkdtempSync(`.test-data/${prefix}-`));
  dirs.push(dir);
  return dir;
}

/** The built app on 127.0.0.1:port, on PGlite at `dataDir`, builtin models, auth off; `env` on top. */
export function startServer(port: number, dataDir: string, env: Record<string, string> = {}): Server {
  // node …/next directly, so that the pid we hold is the server's (STACK-NOTES)
  const proc = spawn(process.execPath, ["node_modules/next/dist/bin/next", "start", "-H", "127.0.0.1", "-p", String(port)], {
    env: { ...process.env, GB_DATA_DIR: dataDir, DATABASE_URL: "", GB_MODELS: "builtin", OPENAI_API_KEY: "", GB_AUTH: "off", NEXT_TELEMETRY_DISABLED: "1", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  proc.stdout?.on("data", (d: Buffer) => (stdout += d.toString()));
  proc.stderr?.on("data", (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => proc.on("exit", (code) => resolve(code)));
  const server = { proc, stdout: () => stdout, stderr: () => stderr, exited };
  servers.push(server);
  return server;
}

/** The exit code, failing if the server is still up after `ms`. */
export async function exitWithin(server: Server, ms: number): Promise<number | null> {
  const timeout = new Promise<"running">((r) => setTimeout(() => r("running"), ms));
  const code = await Promise.race([server.exited, timeout]);
  if (code === "running") throw new Error(`the server still runs after ${ms} ms; stderr: ${server.stderr()}`);
  return code;
}

/** /api/health's answer once the server gives one; fails after `ms`. */
export async function health(port: number, ms: number): Promise<unknown> {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/api/health`);
      if (res.ok) return await res.json();
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`no healthy answer on port ${port} in ${ms} ms`);
    await new Promise((r) => setTimeout(r, 250));
  }
}
