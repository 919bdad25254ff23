import tseslint from "typescript-eslint";

/*
 * Lint: typescript-eslint's recommended rules, plus the boundaries of CONVENTIONS.md §8 and §13:
 * the pipeline core imports nothing of ours; src/lib, src/app (but its route handlers),
 * src/trpc and src/client never import src/server (except types); stages never touch the run-log
 * tables, which the run-log observer alone writes; product code never imports test helpers.
 * (In flat config a later block replaces a rule's options, so each block lists every pattern
 * that applies to its files.)
 */
const noTestHelpers = { group: ["**/test/**", "../test/*", "**/*.test-util"], message: "product code never imports test helpers" };
const pipelineAlone = { group: ["../*", "@/*"], message: "the pipeline core imports nothing outside itself" };
const noServer = { group: ["**/server/**", "@/server/**"], allowTypeImports: true, message: "browser code and pages import only types from src/server" };
const tests = ["**/*.test.ts", "**/*.test-util.ts", "src/test/**"];

// Stages: the operations' folders but for what drives a run (the verbs, the remember queue, an
// operation's own run-log writer).
const stages = ["src/server/remember/**/*.ts", "src/server/query/**/*.ts"];
const notStages = [
  "src/server/remember/execute.ts",
  "src/server/remember/submit.ts",
  "src/server/remember/manager/**",
  "src/server/query/ask.ts",
  "src/server/*/run-log.ts",
];
const runLogMessage = "stages never touch the run log: the run-log observer writes it (CONVENTIONS.md §8)";
const noRunLogModules = { group: ["**/db/schema/run-logs", "**/runs/run-log", "@/server/db/schema/run-logs", "@/server/runs/run-log"], message: runLogMessage };
// the stage outputs' writer (keepOutput): see the exception below
const noOutputWriter = { group: ["**/runs/outputs", "@/server/runs/outputs"], message: runLogMessage };
const noRunLogTables = {
  group: ["**/db/schema", "@/server/db/schema"],
  importNames: ["rememberRuns", "queryRuns", "rememberStageOutputs", "queryStageOutputs"],
  message: runLogMessage,
};
// nor in raw SQL
const noRunLogSql = ["Literal[value=/gb_(remember|query)_run/]", "TemplateElement[value.raw=/gb_(remember|query)_run/]"].map((selector) => ({
  selector,
  message: runLogMessage,
}));

export default tseslint.config(
  { ignores: ["node_modules/**", ".next/**", ".data/**", ".test-data/**", "drizzle/**", "next-env.d.ts", "playwright-report/**", "test-results/**"] },
  ...tseslint.configs.recommended,
  {
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", destructuredArrayIgnorePattern: "^_" }],
      "@typescript-eslint/consistent-type-imports": ["error", { fixStyle: "inline-type-imports" }],
    },
  },
  {
    files: ["src/**/*.{ts,tsx}"],
    ignores: tests,
    rules: { "@typescript-eslint/no-restricted-imports": ["error", { patterns: [noTestHelpers] }] },
  },
  {
    files: ["src/server/pipeline/**/*.ts"],
    ignores: tests,
    rules: { "@typescript-eslint/no-restricted-imports": ["error", { patterns: [noTestHelpers, pipelineAlone] }] },
  },
  {
    files: ["src/lib/**/*.{ts,tsx}", "src/app/**/*.{ts,tsx}", "src/trpc/**/*.{ts,tsx}", "src/client/**/*.{ts,tsx}"],
    // route handlers are the server's HTTP entry points: they hand the request to src/server
    ignores: [...tests, "src/app/**/route.ts"],
    rules: { "@typescript-eslint/no-restricted-imports": ["error", { patterns: [noTestHelpers, noServer] }] },
  },
  {
    files: stages,
    ignores: [...tests, ...notStages],
    rules: {
      "@typescript-eslint/no-restricted-imports": ["error", { patterns: [noTestHelpers, noRunLogModules, noOutputWriter, noRunLogTables] }],
      "no-restricted-syntax": ["error", ...noRunLogSql],
    },
  },
  {
    // Stage outputs go through the observer, but for one: chunk_text's output is the chunk plan
    // that a resumed attempt follows, queue state written (fenced) and read by the job itself
    // (README, "How remember works"). Nothing else of the run log.
    files: ["src/server/remember/job.ts"],
    rules: { "@typescript-eslint/no-restricted-imports": ["error", { patterns: [noTestHelpers, noRunLogModules, noRunLogTables] }] },
  },
);
