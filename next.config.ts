import type { NextConfig } from "next";
import { parseEnv } from "./src/env";

// Validate the environment at build and at start: a bad variable stops both, with its name.
parseEnv();

const config: NextConfig = {
  // PGlite loads its WASM and extension bundles from node_modules at run time, and postgres.js
  // and the openai SDK need no bundling: keep them out of the server bundle.
  serverExternalPackages: ["@electric-sql/pglite", "@electric-sql/pglite-pgvector", "postgres", "openai", "compromise"],
  poweredByHeader: false,
};

export default config;
