/*
 * Long synchronous work written as a generator that `yield`s between bounded steps (a window of
 * text, a sentence, a chunk), so that the same code can run to its end at once (tests, small
 * inputs) or in slices that let the event loop turn: on the request thread a 1 MiB text must
 * not hold every other request, timer and signal of the process until it is done.
 */

/** Work that yields (nothing) between steps and returns T. */
export type Sliced<T> = Generator<void, T, void>;

/** Runs the work to its end without letting go of the thread. */
export function finish<T>(work: Sliced<T>): T {
  let step = work.next();
  while (!step.done) step = work.next();
  return step.value;
}

/** Lets the event loop turn: timers, sockets and signals waiting are served before this resolves. */
export const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** How long a slice of work may hold the thread before the event loop gets a turn. */
export const SLICE_MS = 8;

/** Runs the work, letting the event loop turn whenever a slice has run `sliceMs` or more. */
export async function inSlices<T>(work: Sliced<T>, sliceMs = SLICE_MS): Promise<T> {
  let since = performance.now();
  let step = work.next();
  while (!step.done) {
    if (performance.now() - since >= sliceMs) {
      await turn();
      since = performance.now();
    }
    step = work.next();
  }
  return step.value;
}
