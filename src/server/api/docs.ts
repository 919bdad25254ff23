import { createReadStream } from "node:fs";
import path from "node:path";
import { Readable } from "node:stream";
import { resolveInstalled } from "../installed";
import { SECURITY_SCHEME } from "./openapi-document";

/*
 * /docs: the REST API's reference (Scalar), all of it served by this server. The page loads
 * Scalar's self-contained browser bundle from /docs/scalar.js and the document from
 * /api/openapi.json; everything in Scalar that would reach another host is off: its fonts,
 * telemetry, the AI agent and MCP panels, the developer tools (shown on localhost by default), the
 * request proxy (none is set: "Test request" calls this server), and its links to scalar.com's
 * services point back here.
 */

export const SCALAR_PATH = "/docs/scalar.js";

/** Scalar's browser bundle. The package exports no package.json: its main module is dist/index.js, beside dist/browser/. */
function scalarBundle(): string {
  const main = resolveInstalled("@scalar/api-reference", "the API reference (the @scalar/api-reference package)");
  return path.join(path.dirname(main), "browser", "standalone.js");
}

/** GET /docs/scalar.js, streamed from node_modules. */
export function scalarScript(): Response {
  const stream = Readable.toWeb(createReadStream(scalarBundle())) as ReadableStream<Uint8Array>;
  return new Response(stream, { headers: { "content-type": "text/javascript; charset=utf-8", "cache-control": "public, max-age=3600" } });
}

const configuration = {
  url: "/api/openapi.json",
  withDefaultFonts: false,
  telemetry: false,
  showDeveloperTools: "never",
  agent: { disabled: true },
  mcp: { disabled: true },
  persistAuth: false,
  documentDownloadType: "json",
  // every operation listed at once, not only the first tag's
  defaultOpenAllTags: true,
  authentication: { preferredSecurityScheme: SECURITY_SCHEME },
};

const page = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>gligabao API</title>
</head>
<body>
<div id="app"></div>
<script src="${SCALAR_PATH}"></script>
<script>
const here = window.location.origin;
Scalar.createApiReference("#app", Object.assign(${JSON.stringify(configuration)}, {
  externalUrls: { dashboardUrl: here, registryUrl: here, proxyUrl: here, apiBaseUrl: here },
}));
</script>
</body>
</html>
`;

/** GET /docs */
export function docsPage(): Response {
  return new Response(page, { headers: { "content-type": "text/html; charset=utf-8" } });
}
