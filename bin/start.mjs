#!/usr/bin/env node
// `npm start`: the built app (`next start`, its arguments after `npm start --`). With a Postgres
// server (DATABASE_URL) it runs GB_WORKERS app processes behind the one port (default: one per
// core), supervised by this process (src/server/cluster/primary.ts); on PGlite, whose data dir
// admits one process, it runs one and says so when more were asked for. The env files are read as
// `next start` reads them (@next/env), so that DATABASE_URL in .env.local counts here too.
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const require = createRequire(import.meta.url);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const nextBin = require.resolve("next/dist/bin/next");
require("@next/env").loadEnvConfig(root, false, { info: () => {}, error: console.error });

const args = process.argv.slice(2);
const set = (v) => (v ?? "").trim() !== "";
const server = set(process.env.DATABASE_URL);
const asked = set(process.env.GB_WORKERS) ? Number(process.env.GB_WORKERS) : null;
const workers = server ? (asked ?? os.availableParallelism()) : 1;

if (!server && asked !== null && asked > 1) console.log(`gligabao: GB_WORKERS=${process.env.GB_WORKERS} asks for several app processes, but PGlite (no DATABASE_URL) admits one: running one`);

if (workers === 1 || !Number.isInteger(workers)) {
  // one process: this one becomes `next start` (a bad GB_WORKERS is reported by its env check)
  process.argv = [process.argv[0], nextBin, "start", ...args];
  await import(nextBin);
} else {
  const { register } = await import("tsx/esm/api");
  register();
  const { startPrimary } = await import("../src/server/cluster/start.ts");
  // exit once every worker has: a connection the cluster had dealt to a worker that was stopping
  // stays open in this process until its client gives up (a client without a timeout: never), and
  // would keep it running after the workers were gone
  process.exit(await startPrimary({ workers, nextBin, args }));
}
