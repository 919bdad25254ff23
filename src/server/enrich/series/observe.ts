import type { Models } from "../../models/record";
import type { SeriesWindow } from "./window";

export interface SeriesObservation {
  /** the observation, one or two sentences, as a text given to remember */
  content: string;
  /** the series members it is drawn from */
  textIds: string[];
}

/**
 * observe_series' model call: the window as the model reads it, and the observations it wrote,
 * each kept only when it names members of the window (a model may answer ids it was not given).
 */
export async function observeWindow(models: Models, window: SeriesWindow): Promise<{ observations: SeriesObservation[]; output: unknown }> {
  const members = new Set(window.members.map((m) => m.textId));
  const found = await models.observeSeries(window);
  const observations: SeriesObservation[] = [];
  let dropped = 0;
  for (const o of found.observations) {
    const textIds = [...new Set(o.textIds.filter((id) => members.has(id)))];
    if (o.content.trim().length === 0 || textIds.length === 0) dropped += 1;
    else observations.push({ content: o.content.trim(), textIds });
  }
  return { observations, output: { members: window.members.length, observations: observations.map((o) => o.content), dropped } };
}
