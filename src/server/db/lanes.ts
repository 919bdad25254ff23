import { AsyncLocalStorage } from "node:async_hooks";

/*
 * Lanes of the embedded database: PGlite runs one statement at a time, so the statements of a
 * long remember (a few a chunk, for minutes) queue with those of the calls users wait on. Work
 * started in `background` (the remember manager's runs) takes the lane behind: a waiting
 * statement of a request goes first, and every BACKGROUND_EVERY-th turn goes to the background
 * lane when both wait, so that neither starves. The Postgres server has a pool and needs no lanes.
 *
 * The store lives on globalThis: the built app bundles server code twice, and the manager that
 * sets the lane and the PGlite thread that reads it may come from different copies of this module.
 */

const KEY = Symbol.for("gligabao.db.lane");
type Lane = "background";
const store: AsyncLocalStorage<Lane> = ((globalThis as Record<symbol, unknown>)[KEY] as AsyncLocalStorage<Lane> | undefined) ??
  ((globalThis as Record<symbol, unknown>)[KEY] = new AsyncLocalStorage<Lane>()) as AsyncLocalStorage<Lane>;

/** Runs `fn`, and everything it starts, in the background lane. */
export function inBackground<T>(fn: () => T): T {
  return store.run("background", fn);
}

/** Whether the caller runs in the background lane. */
export function inBackgroundLane(): boolean {
  return store.getStore() === "background";
}

/** when both lanes wait, the background lane's share of the turns: one in this many */
export const BACKGROUND_EVERY = 4;

/**
 * A lock of two lanes: `acquire` resolves when the caller holds it; the holder calls the release
 * it got. Waiting foreground callers go first, in order, but every BACKGROUND_EVERY-th turn with
 * background callers waiting is theirs.
 */
export class LaneLock {
  private held = false;
  private readonly waiting: { foreground: (() => void)[]; background: (() => void)[] } = { foreground: [], background: [] };
  /** turns given to the foreground lane in a row while the background one waited */
  private streak = 0;

  acquire(background: boolean): Promise<() => void> {
    return new Promise((resolve) => {
      const grant = () => resolve(() => this.release());
      if (!this.held) {
        this.held = true;
        grant();
      } else (background ? this.waiting.background : this.waiting.foreground).push(grant);
    });
  }

  private release(): void {
    const { foreground, background } = this.waiting;
    const turnOfBackground = background.length > 0 && (foreground.length === 0 || this.streak >= BACKGROUND_EVERY - 1);
    const next = turnOfBackground ? background.shift() : foreground.shift();
    if (turnOfBackground) this.streak = 0;
    else if (next && background.length > 0) this.streak += 1;
    if (next) next();
    else this.held = false;
  }
}
