/** The model layer: two providers behind one interface (see types.ts). */
export { createBuiltinProvider } from "./builtin";
export { createOpenAIProvider, type OpenAIProviderConfig } from "./openai";
export * from "./types";
