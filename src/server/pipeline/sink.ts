import { AsyncLocalStorage } from "node:async_hooks";

/**
 * The inference sink: while a stage runs, every promise it starts sees this scope, so a model
 * call made anywhere under the stage can file its inference id under it with no code in the
 * stage. Outside a stage there is no scope and nothing is filed.
 */
export interface InferenceScope {
  readonly stage: string;
  addInference(inferenceId: string): void;
}

const storage = new AsyncLocalStorage<InferenceScope>();

export function withInferenceScope<T>(scope: InferenceScope, fn: () => T): T {
  return storage.run(scope, fn);
}

export function currentInferenceScope(): InferenceScope | undefined {
  return storage.getStore();
}
