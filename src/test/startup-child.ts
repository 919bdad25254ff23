import { parseEnv } from "../env";
import { openDatabase } from "../server/db/client";
import { reportStartupFailure } from "../server/startup-failure";
import { initialiseDatabase } from "../server/startup";

/*
 * A process that starts up as the app does, for the start-up tests (src/server/startup.test.ts,
 * src/server/db/open-errors.test.ts). Run with
 *   node --import tsx src/test/startup-child.ts <mode>
 * Modes:
 *   init   initialiseDatabase with the app's environment variables (DATABASE_URL, GB_DATA_DIR,
 *          GB_BOOTSTRAP_*), prints `secret <the auth secret>`, closes and exits 0; on failure
 *          it reports as the server does (reportStartupFailure: the message, exit code 1)
 *   hold   opens the PGlite data dir STARTUP_CHILD_DATA_DIR, prints "ready", and closes it
 *          and exits on SIGTERM
 */

const mode = process.argv[2];

if (mode === "init") {
  try {
    const { database, auth } = await initialiseDatabase(parseEnv());
    console.log(`secret ${auth.options.secret}`);
    await database.close();
  } catch (e) {
    reportStartupFailure(e);
  }
} else if (mode === "hold") {
  const dataDir = process.env.STARTUP_CHILD_DATA_DIR;
  if (!dataDir) throw new Error("STARTUP_CHILD_DATA_DIR is unset");
  const database = await openDatabase({ driver: "pglite", dataDir });
  const keepAlive = setInterval(() => {}, 60_000);
  process.on("SIGTERM", () => {
    clearInterval(keepAlive);
    void database.close();
  });
  console.log("ready");
} else {
  throw new Error(`unknown mode ${mode ?? "(none)"}`);
}
