/**
 * Runs once when the server starts: open (and migrate) the database now rather than on the first
 * request, which would otherwise wait for PGlite's cold start (~5 s). If that fails the process
 * exits with the reason (reportStartupFailure).
 */
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { getApp } = await import("./server/app");
  const { reportStartupFailure } = await import("./server/startup-failure");
  getApp().catch(reportStartupFailure);
}
