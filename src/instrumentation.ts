/**
 * Runs once when the server starts: open (and migrate) the database now rather than on the first
 * request, which would otherwise wait for PGlite's cold start (~5 s).
 */
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { getApp } = await import("./server/app");
  getApp().catch((e: unknown) => console.error("gligabao failed to start", e));
}
