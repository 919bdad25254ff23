import { z } from "zod";
import { type RunKind, RunStatuses } from "../../lib/stages";
import type { App } from "../app";
import { callerFromRequest } from "../auth/request";
import { UnauthorizedError, ValidationError } from "../errors";
import { listRuns } from "../runs/list";
import { ListRunsInput } from "../runs/schemas";
import type { RunSummary } from "../runs/shape";
import { runLogs } from "../runs/tables";
import { toHttpError } from "./errors";

/*
 * The seed's admin REST endpoints: GET /v1/gb/admin/api/{remember,query}-runs. The same data as
 * runs.*.list, with the seed's snake_case names.
 */

/** The routes' query string (also the OpenAPI document's description of it: openapi-document.ts). */
export const QueryString = z.object({
  dataset: z.string().default("default"),
  status: z.string().optional(),
  flagged: z.enum(["true", "false", "1", "0"]).optional(),
  cursor: z.string().optional(),
  limit: z.coerce.number().int().optional(),
});

function parse(url: URL) {
  const raw = QueryString.safeParse(Object.fromEntries(url.searchParams));
  const q = raw.success ? raw.data : null;
  const input = ListRunsInput.safeParse(
    q && {
      dataset: q.dataset,
      status: q.status,
      flagged: q.flagged === undefined ? undefined : q.flagged === "true" || q.flagged === "1",
      cursor: q.cursor,
      limit: q.limit,
    },
  );
  if (input.success) return input.data;
  const issue = (raw.success ? input.error : raw.error).issues[0];
  throw new ValidationError(String(issue?.path[0] ?? "query"), issue?.message ?? "invalid");
}

/** A run as the routes show it, but its id, whose name is the log's (remember_run_id, query_run_id). */
const AdminRun = z.object({
  dataset: z.string(),
  user_id: z.string().nullable(),
  status: z.enum(RunStatuses),
  error: z.string().nullable(),
  flagged: z.boolean(),
  created_at: z.iso.datetime(),
  started_at: z.iso.datetime().nullable(),
  finished_at: z.iso.datetime().nullable(),
  duration_ms: z.number().nullable(),
});

/** What the routes answer (for the OpenAPI document; the handler's runs are typed by AdminRun). */
export const adminRunsAnswer = (kind: RunKind) =>
  z.object({
    counts: z.record(z.enum(RunStatuses), z.number()),
    runs: z.array(AdminRun.extend({ [runLogs[kind].idField]: z.string() })),
    next_cursor: z.string().nullable(),
  });

const iso = (d: Date | null) => (d ? d.toISOString() : null);

const adminRun = (r: RunSummary): z.input<typeof AdminRun> => ({
  dataset: r.dataset,
  user_id: r.userId,
  status: r.status,
  error: r.error,
  flagged: r.flagged,
  created_at: r.createdAt.toISOString(),
  started_at: iso(r.startedAt),
  finished_at: iso(r.finishedAt),
  duration_ms: r.durationMs,
});

export async function handleRunsRest(kind: RunKind, req: Request, app: App): Promise<Response> {
  try {
    const caller = await callerFromRequest(app, req.headers);
    if (!caller) throw new UnauthorizedError();
    const list = await listRuns({ db: app.database.db, scope: caller, kind, input: parse(new URL(req.url)) });
    return Response.json({
      counts: list.counts,
      runs: list.items.map((r) => ({ [runLogs[kind].idField]: r.id, ...adminRun(r) })),
      next_cursor: list.nextCursor,
    });
  } catch (e) {
    const { status, message, retryAfterMs } = toHttpError(e);
    const headers = retryAfterMs ? { "retry-after": String(Math.ceil(retryAfterMs / 1000)) } : undefined;
    return Response.json({ error: message }, { status, headers });
  }
}
