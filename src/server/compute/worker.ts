import { serve } from "../threads/serve";
import { type ComputeTask, computeTasks } from "./tasks";

/** The compute thread (index.ts starts it): runs one task at a time, in the order sent. */
serve(async (msg) => {
  const task = computeTasks[msg.op as ComputeTask] as ((input: unknown) => unknown) | undefined;
  if (!task) throw new Error(`the compute thread has no task ${msg.op}`);
  return task(msg.input);
});
