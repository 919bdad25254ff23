/**
 * Runs once when the server starts: open (and migrate) the database now rather than on the first
 * request, which would otherwise wait for PGlite's cold start (~5 s), and exit with the reason if
 * that fails (reportStartupFailure); and take over SIGTERM and SIGINT, so that stopping the
 * server hands the remember runs in flight back to the queue and closes the database
 * (src/server/shutdown.ts); and stamp each request with its client's address, which the sign-in
 * limit counts (src/server/auth/client-address.ts); and answer requests Node cannot parse (a URL
 * past 16 KiB) with a lingering close, so the client reads the 431 instead of a reset
 * (src/server/http-refusals.ts).
 */
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { getApp } = await import("./server/app");
  const { installShutdown } = await import("./server/shutdown");
  const { reportStartupFailure } = await import("./server/startup-failure");
  const { env } = await import("./env");
  const { installClientAddressStamp } = await import("./server/auth/client-address");
  if (process.env.NODE_ENV === "production" && env().GB_API_LANE === "on") {
    // before the stamp, which then runs first: a lane's call carries the client's address too
    const { installApiLanes } = await import("./server/api/lane");
    const { handleTrpc, TRPC_ENDPOINT } = await import("./server/api/http");
    const { handleRestV1, REST_ENDPOINT } = await import("./server/api/openapi");
    const { securityHeaders } = await import("./lib/security-headers");
    const { logError } = await import("./server/errors");
    installApiLanes(
      [
        { prefix: `${TRPC_ENDPOINT}/`, methods: ["GET", "POST"], handle: async (req) => handleTrpc(req, await getApp()) },
        { prefix: `${REST_ENDPOINT}/`, methods: ["GET", "POST", "PUT", "PATCH", "DELETE"], handle: async (req) => handleRestV1(req, await getApp()) },
      ],
      securityHeaders(false).map((h) => [h.key, h.value] as const),
      (message, error) => logError(message, error),
    );
  }
  installClientAddressStamp(env().GB_TRUST_PROXY);
  const { installLingeringRefusals } = await import("./server/http-refusals");
  installLingeringRefusals();
  installShutdown({ app: () => getApp().catch(() => null), graceMs: env().GB_SHUTDOWN_GRACE_MS });
  getApp().catch(reportStartupFailure);
}
