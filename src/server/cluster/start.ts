import { EnvError, parseEnv } from "../../env";
import { runPrimary } from "./primary";

/**
 * bin/start.mjs with several workers: the environment checked once here (a bad value stops the
 * start before any worker is forked, with the variable's name), then the primary runs them.
 */
export async function startPrimary({ workers, nextBin, args }: { workers: number; nextBin: string; args: string[] }): Promise<number> {
  let env;
  try {
    env = parseEnv(process.env);
  } catch (e) {
    if (!(e instanceof EnvError)) throw e;
    console.error(`gligabao could not start: ${e.message}`);
    return 1;
  }
  return runPrimary({ workers: env.GB_WORKERS ?? workers, nextBin, args, stmCacheBytes: env.GB_STM_CACHE_MB * 1024 * 1024, graceMs: env.GB_SHUTDOWN_GRACE_MS });
}
