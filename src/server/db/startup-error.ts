/*
 * Start-up failures worth a clear message: the database could not be opened, locked or migrated.
 * Each says what failed, where (the PGlite data dir or the server, without its password), the
 * underlying reason and what to do, so that `npm start` can print it and exit.
 */

export interface StartupProblem {
  /** what failed, e.g. "could not open the PGlite data dir" */
  what: string;
  /** the resolved data dir, or the server's URL without its password */
  where: string;
  /** the underlying error, in a line */
  reason: string;
  /** what the operator can do about it */
  todo: string;
}

export class StartupError extends Error implements StartupProblem {
  readonly what: string;
  readonly where: string;
  readonly reason: string;
  readonly todo: string;

  constructor(problem: StartupProblem, options?: { cause?: unknown }) {
    super(`${problem.what}\n  where: ${problem.where}\n  reason: ${problem.reason}\n  what to do: ${problem.todo}`, options);
    this.name = "StartupError";
    this.what = problem.what;
    this.where = problem.where;
    this.reason = problem.reason;
    this.todo = problem.todo;
  }
}

/** The server's address for messages: the URL with any password replaced by `***`. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = "***";
    for (const key of [...u.searchParams.keys()]) if (/pass/i.test(key)) u.searchParams.set(key, "***");
    return u.toString();
  } catch {
    // not a URL we can parse (env.ts rejects those, but a caller may pass anything): say nothing of it
    return "(an unparsable DATABASE_URL)";
  }
}

// PGlite's file system is Emscripten's, whose errors carry only an errno of its own numbering
// (src/lib/libc/musl/arch/emscripten/bits/errno.h); the few a data dir meets, by name.
const EMSCRIPTEN_ERRNO: Record<number, string> = {
  2: "EACCES (permission denied)",
  20: "EEXIST (already exists)",
  28: "EINVAL (invalid argument)",
  29: "EIO (input/output error)",
  31: "EISDIR (is a directory)",
  44: "ENOENT (no such file or directory)",
  51: "ENOSPC (no space left on device)",
  54: "ENOTDIR (not a directory)",
  63: "EPERM (operation not permitted)",
  69: "EROFS (read-only file system)",
};

interface ErrorLike {
  message?: unknown;
  code?: unknown;
  errno?: unknown;
  name?: unknown;
  cause?: unknown;
}

/**
 * The underlying reason of an error in one line: drizzle wraps a driver's error as "Failed
 * query: …" with the real one as `cause`, and Emscripten's errors have a number and no message.
 */
export function reasonOf(e: unknown): string {
  let err: unknown = e;
  // the innermost cause says most; drizzle's wrapper only repeats the query
  while (err && typeof err === "object" && (err as ErrorLike).cause) err = (err as ErrorLike).cause;
  if (!err || typeof err !== "object") return String(err);
  const { message, code, errno, name } = err as ErrorLike;
  if (name === "ErrnoError" && typeof errno === "number") {
    return `file system error ${EMSCRIPTEN_ERRNO[errno] ?? `errno ${errno}`} in PGlite`;
  }
  const text = typeof message === "string" && message ? (message.split("\n")[0] ?? message) : String(err);
  // postgres.js puts SQLSTATE in `code`; node puts its own code in the message already
  return typeof code === "string" && !text.includes(code) ? `${text} (${code})` : text;
}

/** The innermost error's code (a SQLSTATE or a node error code), if it has one. */
export function codeOf(e: unknown): string | undefined {
  let err: unknown = e;
  while (err && typeof err === "object") {
    const { code, cause } = err as ErrorLike;
    if (typeof code === "string") return code;
    err = cause;
  }
  return undefined;
}
