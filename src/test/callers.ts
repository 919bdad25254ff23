import { createCaller } from "../server/api/root";
import { createInnerContext } from "../server/api/trpc";
import type { App } from "../server/app";
import { type Caller, LOCAL_CALLER } from "../server/auth/caller";

/** The test's signed-in person: an owner of the default team. */
export const TEST_OWNER: Caller = { ...LOCAL_CALLER, kind: "user", id: "test-user", label: "owner@test" };

/** The whole router called in-process, as `caller` (the default team's owner by default; null = nobody). */
export function callerFor(app: App, caller: Caller | null = TEST_OWNER) {
  return createCaller(createInnerContext({ app, caller }));
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
