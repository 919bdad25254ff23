import { parseArgs, type ParseArgsConfig } from "node:util";
import { call, CliError, type ServerConfig } from "./api";
import { formatAnswer, formatProgress, formatRun, formatRunList, formatStageLine, type RunDetailWire, type RunListWire, type AskWire } from "./format";

/*
 * gligabao's command line: remember, query, runs, forget and mcp against a running server
 * (GB_URL, GB_API_KEY), through the REST API. Human output by default, --json for scripts; errors
 * on stderr and a non-zero exit code (1 a failed call or run, 2 a wrong command line).
 */

export interface CliIo {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
  /** the whole of standard input (remember's text when no argument gives it); null = a terminal */
  readStdin: () => Promise<string | null>;
  env: Record<string, string | undefined>;
  /** stderr is a terminal: progress redraws one line instead of printing one per change */
  tty: boolean;
  fetch?: typeof fetch;
  /** how long remember waits between looks at its run (tests shorten it) */
  pollMs?: number;
  /** Ctrl-C while a remember runs: stops the waiting, not the run */
  signal?: AbortSignal;
}

const VERSION = "0.1.0";
const DEFAULT_URL = "http://localhost:3000";

const USAGE = `gligabao — the memory service's command line

Usage:
  gligabao remember [TEXT | -] [--dataset D] [--user U] [--series S] [--occurred-at T] [--key K] [--no-wait] [--json]
      Remember TEXT (or standard input, for "-" or no TEXT). Shows the run's progress until it ends,
      unless --no-wait (then prints the run id at once).
  gligabao query QUESTION [--dataset D] [--as-of T] [--limit N] [--user U] [--json]
      Ask the memory; prints the answer and the sources it cites.
  gligabao runs [list] [--kind remember|query] [--dataset D] [--status S] [--flagged] [--limit N] [--cursor C] [--json]
  gligabao runs get ID [--kind remember|query] [--json]
      The run logs: a page of runs, or one run with its stages.
  gligabao forget (--user U | --entity ID) [--dataset D] --yes [--json]
      Purge a person from memory (admin keys only); prints the receipt.
  gligabao mcp
      An MCP server on stdio for desktop MCP clients, talking to the server at GB_URL.

Options for every command:
  --url URL        the server (default: $GB_URL, else ${DEFAULT_URL})
  --api-key KEY    the API key (default: $GB_API_KEY)
  --json           machine-readable output on stdout
  -h, --help       this text;  --version  the version
`;

const COMMON = {
  url: { type: "string" },
  "api-key": { type: "string" },
  json: { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const satisfies ParseArgsConfig["options"];

function parse<O extends NonNullable<ParseArgsConfig["options"]>>(args: string[], options: O) {
  try {
    return parseArgs({ args, options: { ...COMMON, ...options }, allowPositionals: true, strict: true });
  } catch (e) {
    throw new CliError(e instanceof Error ? e.message : String(e), "USAGE");
  }
}

function serverOf(values: { url?: string; "api-key"?: string }, io: CliIo): ServerConfig {
  const url = values.url ?? io.env.GB_URL ?? DEFAULT_URL;
  try {
    const u = new URL(url);
    if (u.protocol !== "http:" && u.protocol !== "https:") throw new Error("not http(s)");
  } catch {
    throw new CliError(`--url / GB_URL: "${url}" is not an http(s) URL`, "USAGE");
  }
  return { url, apiKey: values["api-key"] ?? (io.env.GB_API_KEY || undefined), fetch: io.fetch };
}

function positiveInt(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new CliError(`${flag}: must be a whole number above 0, not "${value}"`, "USAGE");
  return n;
}

const kindOf = (value: string | undefined): "remember" | "query" | undefined => {
  if (value === undefined || value === "remember" || value === "query") return value;
  throw new CliError(`--kind: must be remember or query, not "${value}"`, "USAGE");
};

const json = (io: CliIo, v: unknown) => io.stdout(`${JSON.stringify(v, null, 2)}\n`);

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => (clearTimeout(t), resolve()), { once: true });
  });

const ENDED = new Set(["succeeded", "failed"]);

async function remember(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parse(args, {
    dataset: { type: "string", short: "d" },
    user: { type: "string" },
    series: { type: "string" },
    "occurred-at": { type: "string" },
    key: { type: "string" },
    "no-wait": { type: "boolean" },
  });
  if (values.help) return (io.stdout(USAGE), 0);
  const server = serverOf(values, io);
  let text = positionals.join(" ");
  if (positionals.length === 0 || text === "-") {
    const stdin = await io.readStdin();
    if (stdin === null) throw new CliError("remember: give the text as an argument, or pipe it in (gligabao remember - < notes.txt)", "USAGE");
    text = stdin;
  }
  const submitted = await call<{ rememberRunId: string; status: string; replayed: boolean }>(server, "POST", "/remember", {
    dataset: values.dataset ?? "default",
    text,
    userId: values.user,
    series: values.series,
    occurredAt: values["occurred-at"],
    idempotencyKey: values.key,
  });
  const id = submitted.rememberRunId;
  if (values["no-wait"]) {
    if (values.json) json(io, submitted);
    else io.stdout(`${id}\n`);
    return 0;
  }
  if (!values.json) io.stderr(`remember run ${id}${submitted.replayed ? " (the key's earlier run)" : ""}\n`);
  // look at the run until it ends, saying each stage as it ends and how far the chunks are
  const said = new Set<string>();
  let lastLine = "";
  for (;;) {
    const run = await call<RunDetailWire>(server, "GET", `/remember/${encodeURIComponent(id)}`).catch((e: unknown) => {
      // the server went away while we watched: the run is kept, and goes on when it is back
      if (e instanceof CliError && e.code === "UNREACHABLE") throw new CliError(`${e.message}; the run is kept and goes on when the server is back: gligabao runs get ${id}`, e.code);
      throw e;
    });
    if (!values.json) {
      for (const s of run.stages) {
        if (said.has(s.name) || !["succeeded", "failed", "skipped"].includes(s.status)) continue;
        said.add(s.name);
        if (io.tty && lastLine) io.stderr("\r\x1b[2K");
        io.stderr(`${formatStageLine(s)}\n`);
        lastLine = "";
      }
      const line = formatProgress(run);
      if (line !== lastLine && !ENDED.has(run.status)) {
        io.stderr(io.tty ? `\r\x1b[2K${line}` : `${line}\n`);
        lastLine = line;
      }
    }
    if (ENDED.has(run.status)) {
      if (io.tty && lastLine) io.stderr("\r\x1b[2K");
      if (values.json) json(io, run);
      // the stages went to stderr as they ended: stdout says how it ended
      else io.stdout(`${formatRun(run, { stages: false })}\n`);
      return run.status === "succeeded" ? 0 : 1;
    }
    if (io.signal?.aborted) {
      io.stderr(`\nstopped waiting; the run goes on on the server: gligabao runs get ${id}\n`);
      return 130;
    }
    await sleep(io.pollMs ?? 400, io.signal);
  }
}

async function query(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parse(args, {
    dataset: { type: "string", short: "d" },
    "as-of": { type: "string" },
    limit: { type: "string" },
    user: { type: "string" },
  });
  if (values.help) return (io.stdout(USAGE), 0);
  const question = positionals.join(" ");
  if (!question.trim()) throw new CliError("query: give the question (gligabao query \"where does Ana live?\")", "USAGE");
  const answer = await call<AskWire>(serverOf(values, io), "POST", "/query", {
    dataset: values.dataset ?? "default",
    question,
    asOf: values["as-of"],
    limit: positiveInt(values.limit, "--limit"),
    userId: values.user,
  });
  if (values.json) json(io, answer);
  else io.stdout(`${formatAnswer(answer)}\n`);
  return 0;
}

async function runs(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parse(args, {
    kind: { type: "string" },
    dataset: { type: "string", short: "d" },
    status: { type: "string" },
    flagged: { type: "boolean" },
    limit: { type: "string" },
    cursor: { type: "string" },
  });
  if (values.help) return (io.stdout(USAGE), 0);
  const server = serverOf(values, io);
  const [sub = "list", id, ...rest] = positionals;
  const kind = kindOf(values.kind);
  if (sub === "get") {
    if (!id || rest.length) throw new CliError("runs get: give one run id", "USAGE");
    // without --kind, the id is looked up in the remember log, then the query log
    let run: RunDetailWire | null = null;
    for (const k of kind ? [kind] : (["remember", "query"] as const)) {
      try {
        run = await call<RunDetailWire>(server, "GET", `/runs/${k}/${encodeURIComponent(id)}`);
        break;
      } catch (e) {
        if (!(e instanceof CliError && e.code === "NOT_FOUND") || k === "query" || kind) throw e;
      }
    }
    if (!run) throw new CliError(`no run ${id}`, "NOT_FOUND");
    if (values.json) json(io, run);
    else io.stdout(`${formatRun(run)}\n`);
    return 0;
  }
  if (sub !== "list" || id !== undefined) throw new CliError(`runs: unknown subcommand "${[sub, id, ...rest].filter(Boolean).join(" ")}" (list or get ID)`, "USAGE");
  const list = await call<RunListWire>(server, "GET", `/runs/${kind ?? "remember"}`, {
    dataset: values.dataset ?? "default",
    status: values.status,
    flagged: values.flagged,
    limit: positiveInt(values.limit, "--limit"),
    cursor: values.cursor,
  });
  if (values.json) json(io, list);
  else io.stdout(`${formatRunList(kind ?? "remember", list)}\n`);
  return 0;
}

async function forget(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parse(args, {
    user: { type: "string" },
    entity: { type: "string" },
    dataset: { type: "string", short: "d" },
    yes: { type: "boolean" },
  });
  if (values.help) return (io.stdout(USAGE), 0);
  if (positionals.length) throw new CliError(`forget: unexpected "${positionals.join(" ")}" (name the person with --user or --entity)`, "USAGE");
  if ((values.user === undefined) === (values.entity === undefined)) throw new CliError("forget: give exactly one of --user and --entity", "USAGE");
  if (!values.yes) {
    const where = values.dataset ? `dataset ${values.dataset}` : "every dataset the key can see";
    throw new CliError(`forget deletes the person's texts, what only they support and their runs' data in ${where}, for good: add --yes to do it`, "USAGE");
  }
  const receipt = await call<Record<string, unknown>>(serverOf(values, io), "POST", "/subjects/purge", {
    dataset: values.dataset,
    userId: values.user,
    entityId: values.entity,
  });
  if (values.json) json(io, receipt);
  else {
    const deleted = Object.entries((receipt.deleted ?? {}) as Record<string, number>).filter(([, n]) => n > 0);
    io.stdout(
      `purged (receipt ${String(receipt.id)}) from ${((receipt.datasets ?? []) as string[]).join(", ") || "no dataset"}\n` +
        (deleted.length ? deleted.map(([t, n]) => `  ${t}: ${n}`).join("\n") : "  nothing was stored for them") +
        "\n",
    );
  }
  return 0;
}

async function mcp(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parse(args, {});
  if (values.help) return (io.stdout(USAGE), 0);
  if (positionals.length) throw new CliError(`mcp: unexpected "${positionals.join(" ")}"`, "USAGE");
  const server = serverOf(values, io);
  // loaded only here: the other commands do not need the MCP SDK
  const { runMcpStdio } = await import("./mcp-stdio");
  await runMcpStdio({ url: server.url, apiKey: server.apiKey });
  return 0;
}

const COMMANDS: Record<string, (args: string[], io: CliIo) => Promise<number>> = { remember, query, runs, forget, mcp };

/** Runs one command line; returns the exit code. */
export async function run(argv: string[], io: CliIo): Promise<number> {
  const [command, ...args] = argv;
  if (command === undefined || command === "help" || command === "--help" || command === "-h") {
    io.stdout(USAGE);
    return command === undefined ? 2 : 0;
  }
  if (command === "--version" || command === "version") return (io.stdout(`${VERSION}\n`), 0);
  const handler = COMMANDS[command];
  const wantsJson = args.includes("--json");
  try {
    if (!handler) throw new CliError(`unknown command "${command}" (remember, query, runs, forget or mcp; --help for more)`, "USAGE");
    return await handler(args, io);
  } catch (e) {
    const err = e instanceof CliError ? e : new CliError(e instanceof Error ? e.message : String(e), "INTERNAL");
    if (wantsJson) io.stderr(`${JSON.stringify({ error: { code: err.code, message: err.message, field: err.field } })}\n`);
    else io.stderr(`gligabao: ${err.message}${err.code === "USAGE" ? "\n(gligabao --help shows the commands)" : ""}\n`);
    return err.code === "USAGE" ? 2 : 1;
  }
}
