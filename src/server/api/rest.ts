import { z } from "zod";
import type { RunKind } from "../../lib/stages";
import type { App } from "../app";
import { callerFromRequest } from "../auth/request";
import { UnauthorizedError, ValidationError } from "../errors";
import { listRuns } from "../runs/list";
import { ListRunsInput } from "../runs/schemas";
import { runLogs } from "../runs/tables";
import { toHttpError } from "./errors";

/*
 * The seed's admin REST endpoints: GET /v1/gb/admin/api/{remember,query}-runs. The same data as
 * runs.*.list, with the seed's snake_case names.
 */

const QueryString = z.object({
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

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export async function handleRunsRest(kind: RunKind, req: Request, app: App): Promise<Response> {
  try {
    const caller = await callerFromRequest(app, req.headers);
    if (!caller) throw new UnauthorizedError();
    const list = await listRuns({ db: app.database.db, scope: caller, kind, input: parse(new URL(req.url)) });
    return Response.json({
      counts: list.counts,
      runs: list.items.map((r) => ({
        [runLogs[kind].idField]: r.id,
        dataset: r.dataset,
        user_id: r.userId,
        status: r.status,
        error: r.error,
        flagged: r.flagged,
        created_at: iso(r.createdAt),
        started_at: iso(r.startedAt),
        finished_at: iso(r.finishedAt),
        duration_ms: r.durationMs,
      })),
      next_cursor: list.nextCursor,
    });
  } catch (e) {
    const { status, message, retryAfterMs } = toHttpError(e);
    const headers = retryAfterMs ? { "retry-after": String(Math.ceil(retryAfterMs / 1000)) } : undefined;
    return Response.json({ error: message }, { status, headers });
  }
}
