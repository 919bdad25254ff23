import { statSync } from "node:fs";
import path from "node:path";
import { codeOf, reasonOf, redactUrl, StartupError } from "./startup-error";

/*
 * What to tell the operator when a database cannot be opened, by the error's code: the data dir
 * (a file, not writable, a full disk) or the server (not running, no such database, wrong
 * password).
 */

/** The nearest ancestor of `dir` (or `dir` itself) that exists and is not a directory. */
function fileInTheWay(dir: string): string | undefined {
  for (let p = dir; ; p = path.dirname(p)) {
    let stat;
    try {
      stat = statSync(p, { throwIfNoEntry: false });
    } catch {
      // ENOTDIR: a file further up; keep climbing to it
    }
    if (stat) return stat.isDirectory() ? undefined : p;
    if (path.dirname(p) === p) return undefined;
  }
}

function dataDirTodo(dir: string, code: string | undefined): string {
  switch (code) {
    case "ENOTDIR":
    case "EEXIST": {
      const file = fileInTheWay(dir);
      return `${file ? `${file} is a file, not a directory: ` : ""}point GB_DATA_DIR at a directory (it is made if missing)`;
    }
    case "EACCES":
    case "EPERM":
      return `the directory is not writable by this user${process.getuid ? ` (uid ${process.getuid()})` : ""}: fix its owner or permissions, or set GB_DATA_DIR to a writable directory`;
    case "EROFS":
      return "the file system is read-only: set GB_DATA_DIR to a directory on a writable one";
    case "ENOSPC":
      return "the disk is full: free some space";
    case "ELOOP":
      return "a symlink in the path points back at itself: fix the link, or set GB_DATA_DIR to the real directory";
    default:
      return "check that GB_DATA_DIR names a directory this process can write";
  }
}

/** The data dir could not be made, resolved or locked. A StartupError already is one passes through. */
export function dataDirError(dir: string, e: unknown): StartupError {
  if (e instanceof StartupError) return e;
  return new StartupError(
    { what: "could not open the PGlite data dir", where: dir, reason: reasonOf(e), todo: dataDirTodo(dir, codeOf(e)) },
    { cause: e },
  );
}

/** PGlite failed on a data dir we could make, resolve and lock. */
export function pgliteOpenError(dir: string, e: unknown): StartupError {
  if (e instanceof StartupError) return e;
  return new StartupError(
    {
      what: "could not open the PGlite database",
      where: dir,
      reason: reasonOf(e),
      todo:
        "is this directory a data dir of this version of PGlite (PostgreSQL 18), and intact? " +
        "To start afresh, move it aside: a new one is made at the next start",
    },
    { cause: e },
  );
}

function postgresTodo(code: string | undefined): string {
  switch (code) {
    case "ECONNREFUSED":
      return "is the Postgres server running, and listening at that host and port? Check DATABASE_URL";
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return "the host name does not resolve: check the host in DATABASE_URL";
    case "ETIMEDOUT":
    case "CONNECT_TIMEOUT":
      return "the server did not answer: is it running, and reachable from here? Check DATABASE_URL";
    case "3D000":
      return "the database does not exist: create it (createdb), or fix its name in DATABASE_URL";
    case "28P01":
    case "28000":
      return "the server refused the login: check the user and password in DATABASE_URL (and the server's pg_hba.conf)";
    case "53300":
      return "the server has no connection left: raise its max_connections, or stop other clients";
    default:
      return "is the Postgres server running? Check DATABASE_URL";
  }
}

/** The Postgres server of `url` could not be reached or refused us. */
export function postgresOpenError(url: string, e: unknown): StartupError {
  return new StartupError(
    { what: "could not connect to the Postgres server", where: redactUrl(url), reason: reasonOf(e), todo: postgresTodo(codeOf(e)) },
    { cause: e },
  );
}
