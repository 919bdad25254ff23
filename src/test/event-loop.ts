/** Counts the turns of the event loop while `p` runs (a setImmediate that re-arms itself): work that holds the thread lets none through. */
export async function turnsDuring<T>(p: () => Promise<T>): Promise<{ value: T; turns: number }> {
  let turns = 0;
  let on = true;
  const tick = () => {
    turns += 1;
    if (on) setImmediate(tick);
  };
  setImmediate(tick);
  try {
    return { value: await p(), turns };
  } finally {
    on = false;
  }
}
