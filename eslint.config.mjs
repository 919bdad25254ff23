import tseslint from "typescript-eslint";

/*
 * Lint: typescript-eslint's recommended rules, plus the boundaries of CONVENTIONS.md §13:
 * the pipeline core imports nothing of ours; src/lib and the pages never import src/server
 * (except types); product code never imports test helpers. (In flat config a later block
 * replaces a rule's options, so each block lists every pattern that applies to its files.)
 */
const noTestHelpers = { group: ["**/test/**", "../test/*", "**/*.test-util"], message: "product code never imports test helpers" };
const pipelineAlone = { group: ["../*", "@/*"], message: "the pipeline core imports nothing outside itself" };
const noServer = { group: ["**/server/**", "@/server/**"], allowTypeImports: true, message: "browser code and pages import only types from src/server" };
const tests = ["**/*.test.ts", "**/*.test-util.ts", "src/test/**"];

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
    files: ["src/lib/**/*.{ts,tsx}", "src/app/**/*.tsx", "src/trpc/**/*.{ts,tsx}"],
    ignores: tests,
    rules: { "@typescript-eslint/no-restricted-imports": ["error", { patterns: [noTestHelpers, noServer] }] },
  },
);
