/*
 * Long synchronous work written as a generator that `yield`s between bounded steps (a window of
 * text, a sentence, a chunk). It runs to its end with finish(), on the compute thread
 * (../compute), off the thread that serves requests; the steps keep each piece of the work
 * bounded (the tokenizer and segmenter see windows, not a megabyte). turn() is for code on the
 * request thread that works in batches (a purge, a dataset's deletion) and lets the loop turn
 * between them.
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
