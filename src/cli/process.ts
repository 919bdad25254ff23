import { run } from "./main";

/** Reads all of standard input, or null when it is a terminal (nobody piped anything in). */
async function readStdin(): Promise<string | null> {
  if (process.stdin.isTTY) return null;
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/** The command line as the `gligabao` bin runs it: this process's arguments, streams and env. */
export async function runFromProcess(): Promise<number> {
  const stop = new AbortController();
  // the first Ctrl-C stops waiting for a run (which goes on on the server); a second one exits
  process.once("SIGINT", () => {
    stop.abort();
    process.once("SIGINT", () => process.exit(130));
  });
  return run(process.argv.slice(2), {
    stdout: (s) => process.stdout.write(s),
    stderr: (s) => process.stderr.write(s),
    readStdin,
    env: process.env,
    tty: process.stderr.isTTY === true,
    signal: stop.signal,
  });
}
