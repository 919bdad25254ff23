import { createCaller } from "../server/api/root";
import { createInnerContext } from "../server/api/trpc";
import type { App } from "../server/app";

/** The whole router called in-process, as a signed-in test user. */
export function callerFor(app: App) {
  return createCaller(createInnerContext({ app, userId: "test-user" }));
}

/** The tRPC error code of a rejected call (e.g. "BAD_REQUEST"), with its field. */
export async function rejection(p: Promise<unknown>): Promise<{ code: string; message: string; field: string | null }> {
  try {
    await p;
  } catch (e) {
    const err = e as { code?: string; message: string; cause?: unknown };
    const cause = err.cause as { issues?: { path: PropertyKey[] }[]; field?: string } | undefined;
    const field = cause?.field ?? (cause?.issues?.[0]?.path.join(".") || null);
    return { code: err.code ?? "?", message: err.message, field };
  }
  throw new Error("expected the call to fail");
}
