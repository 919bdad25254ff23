import type { Each, Item, Policy, Stage, StageResult, Step } from "./types";

export interface StageSpec<J> {
  name: string;
  run: (job: J) => StageResult | Promise<StageResult>;
  policy?: Policy;
  enabled?: (job: J) => boolean;
  also?: readonly string[] | ((job: J) => readonly string[]);
}

export function stage<J>(spec: StageSpec<J>): Stage<J> {
  return {
    kind: "stage",
    name: spec.name,
    run: spec.run,
    policy: spec.policy ?? "fatal",
    enabled: spec.enabled,
    also: spec.also ?? [],
  };
}

/**
 * Runs `steps` once for every item of the call, each item to the end before the next.
 * `itemIndex`: an item's index in the run log (its outputs), when that is not its place (remember's
 * chunks keep their index across attempts, while a resumed attempt's items are the chunks left).
 */
export function each<J, I>(
  items: (job: J) => readonly I[],
  steps: readonly Step<Item<J, I>>[],
  itemIndex?: (item: I) => number,
): Each<J> {
  return {
    kind: "each",
    items: (job) => items(job).map((item, index): Item<J, I> => ({ job, item, index })),
    // the runner passes back only what items() made
    itemIndex: (itemJob) => {
      const it = itemJob as Item<J, I>;
      return itemIndex ? itemIndex(it.item) : it.index;
    },
    // The item type is checked above, where items and steps meet; the runner only passes
    // back what items() produced, so erasing it here is safe.
    steps: steps as readonly Step<unknown>[],
  };
}

/** Every stage name of a pipeline (with Each groups and `also` stages), in order, once. */
export function names<J>(steps: readonly Step<J>[]): string[] {
  const out: string[] = [];
  const add = (name: string) => {
    if (!out.includes(name)) out.push(name);
  };
  const walk = (list: readonly Step<unknown>[]) => {
    for (const step of list) {
      if (step.kind === "each") walk(step.steps);
      else {
        add(step.name);
        if (typeof step.also !== "function") step.also.forEach(add);
      }
    }
  };
  walk(steps as readonly Step<unknown>[]);
  return out;
}
