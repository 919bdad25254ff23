import { UnavailableError } from "./errors";

/*
 * The API calls a process is serving, so that stopping it (shutdown.ts → App.close) lets them
 * finish before the database closes, and refuses the ones that arrive after: with 503 and
 * Retry-After (another process behind the port, or this one restarted, answers the retry), never
 * a 500 from a closed database. Counted on the App, not in a module: the built app bundles the
 * server twice (the instrumentation hook that stops the App, and the route handlers that serve).
 */

export interface RequestGate {
  /** Admits a call: the function to call when it is done, or null when the process is stopping. */
  enter(): (() => void) | null;
  /** the calls admitted and not yet done */
  readonly inFlight: number;
  readonly closed: boolean;
  /**
   * Admits no more calls and waits for those in flight, at most `ms`: how many were still in
   * flight when it stopped waiting (0 when all finished).
   */
  close(ms: number): Promise<number>;
}

/** What a client is told to wait before it tries again, in ms. */
export const STOPPING_RETRY_MS = 1000;

/** The error of a call refused because the process is stopping (503, Retry-After). */
export function stoppingError(): UnavailableError {
  return new UnavailableError("this server", "it is stopping; retry the call", { retryAfterMs: STOPPING_RETRY_MS });
}

/** The same refusal for the routes that answer plain JSON (health, sign-in, the admin's REST). */
export function stoppingResponse(): Response {
  return Response.json(
    { code: "SERVICE_UNAVAILABLE", message: stoppingError().message },
    { status: 503, headers: { "retry-after": String(Math.ceil(STOPPING_RETRY_MS / 1000)) } },
  );
}

export function createRequestGate(): RequestGate {
  let inFlight = 0;
  let closed = false;
  let drained: (() => void) | null = null;
  return {
    enter() {
      if (closed) return null;
      inFlight++;
      let left = false;
      return () => {
        if (left) return;
        left = true;
        inFlight--;
        if (inFlight === 0) drained?.();
      };
    },
    get inFlight() {
      return inFlight;
    },
    get closed() {
      return closed;
    },
    async close(ms) {
      closed = true;
      if (inFlight === 0) return 0;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, ms);
        drained = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      drained = null;
      return inFlight;
    },
  };
}

/**
 * Runs `answer` as one call of the gate, counted in flight until it has answered; `admitted` is
 * false when the process is stopping, and the answer then refuses the call in its own format
 * (tRPC's and REST's handlers: their error mapping says 503).
 */
export async function asOneCall<T>(gate: RequestGate, answer: (admitted: boolean) => Promise<T>): Promise<T> {
  const leave = gate.enter();
  try {
    return await answer(leave !== null);
  } finally {
    leave?.();
  }
}

/** Runs a route's handler as one call of the gate; `refuse` answers when the process is stopping. */
export function admitted(gate: RequestGate, handle: () => Promise<Response>, refuse: () => Response = stoppingResponse): Promise<Response> {
  return asOneCall(gate, (ok) => (ok ? handle() : Promise.resolve(refuse())));
}
