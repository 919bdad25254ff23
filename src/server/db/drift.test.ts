import { spawn } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { expect, it } from "vitest";

/*
 * The committed migrations are what drizzle-kit makes of the schema: its generate, run with the
 * project's drizzle.config.ts on a copy of drizzle/, writes nothing. A schema change without its
 * migration (`npm run db:generate`) fails here, offline, with the SQL that is missing.
 */

const root = process.cwd();

/** Every file under `dir`, by path relative to it, with its content. */
function tree(dir: string, under = ""): Map<string, string> {
  const files = new Map<string, string>();
  for (const e of readdirSync(path.join(dir, under), { withFileTypes: true })) {
    const rel = path.join(under, e.name);
    if (e.isDirectory()) for (const [k, v] of tree(dir, rel)) files.set(k, v);
    else files.set(rel, readFileSync(path.join(dir, rel), "utf8"));
  }
  return files;
}

/** Runs drizzle-kit's CLI; its output, whatever the exit code (it exits 0 on some errors too). */
function drizzleKit(args: string[], timeoutMs: number): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    // stdin closed: a question (a rename?) ends the run instead of waiting for an answer
    const child = spawn(process.execPath, [path.join(root, "node_modules/drizzle-kit/bin.cjs"), ...args], {
      cwd: root,
      stdio: ["ignore", "pipe", "pipe"],
      timeout: timeoutMs,
    });
    let output = "";
    child.stdout.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr.on("data", (d: Buffer) => (output += d.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, output }));
  });
}

it("the committed migrations match the schema: drizzle-kit generate writes no new migration", async () => {
  mkdirSync(path.join(root, ".test-data"), { recursive: true });
  // inside the project: drizzle-kit reads `out` relative to the working directory
  const dir = mkdtempSync(path.join(root, ".test-data", "drift-"));
  try {
    const out = path.join(dir, "drizzle");
    cpSync(path.join(root, "drizzle"), out, { recursive: true });
    const before = tree(out);
    const config = path.join(dir, "drizzle.config.ts");
    const base = path.relative(dir, path.join(root, "drizzle.config")).split(path.sep).join("/");
    const outRel = `./${path.relative(root, out).split(path.sep).join("/")}`;
    writeFileSync(config, `import base from ${JSON.stringify(base)};\nexport default { ...base, out: ${JSON.stringify(outRel)} };\n`);

    const { code, output } = await drizzleKit(["generate", "--config", config], 45_000);
    const after = tree(out);
    const changed = [...after].filter(([f, text]) => before.get(f) !== text);
    const written = changed.map(([f, text]) => `${f}:\n${f.endsWith(".sql") ? text : "(changed)"}`).join("\n");
    expect(written, "drizzle-kit generate wrote a migration: the schema changed without one (npm run db:generate)").toBe("");
    expect([...before.keys()].filter((f) => !after.has(f))).toEqual([]);
    expect(code, output).toBe(0);
    // and it did compare: a config it could not load also writes nothing
    expect(output).toContain("No schema changes, nothing to migrate");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 60_000);
