import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";

/*
 * `gligabao mcp`: an MCP server on stdio for desktop MCP clients, which forwards tools and
 * resources to a running gligabao server's /api/mcp (Streamable HTTP, Bearer key). The server
 * does all the work and every check; this only relays. stdout carries the protocol and nothing
 * else: anything to say goes to stderr. A server that cannot be reached, or refuses the key, is
 * said in plain words: as a tool result with isError for tools/call, as the JSON-RPC error
 * otherwise. The connection is made at start and again after a failure.
 */

const VERSION = "0.1.0";
/** how long a tool call may take (remember with wait): as long as fetch waits for an answer */
const CALL_TIMEOUT_MS = 300_000;
const CONNECT_TIMEOUT_MS = 10_000;

const log = (s: string): void => {
  process.stderr.write(`gligabao mcp: ${s}\n`);
};

/** What went wrong with the remote server, for the person reading the MCP client's error. */
function explain(e: unknown, endpoint: string, apiKey: string | undefined): string {
  if (e instanceof StreamableHTTPError) {
    if (e.code === 401) return apiKey ? `the gligabao server at ${endpoint} refused the API key (GB_API_KEY)` : `the gligabao server at ${endpoint} needs an API key: set GB_API_KEY`;
    if (e.code === 404) return `no MCP endpoint at ${endpoint} (is GB_URL a gligabao server?)`;
    return `the gligabao server at ${endpoint} answered HTTP ${e.code}: ${e.message}`;
  }
  if (e instanceof McpError && e.code === ErrorCode.RequestTimeout) return `the gligabao server at ${endpoint} did not answer in time`;
  const cause = e instanceof Error && e.cause instanceof Error ? ` (${(e.cause as NodeJS.ErrnoException).code ?? e.cause.message})` : "";
  return `cannot reach the gligabao server at ${endpoint} (GB_URL)${cause}: ${e instanceof Error ? e.message : String(e)}`;
}

/** The one connection to the remote server, made when needed; dropped after a failure. */
function remoteOf(endpoint: string, apiKey: string | undefined) {
  let client: Promise<Client> | null = null;
  const connect = async () => {
    const c = new Client({ name: "gligabao-stdio", version: VERSION });
    const headers: Record<string, string> = apiKey ? { authorization: `Bearer ${apiKey}` } : {};
    await c.connect(new StreamableHTTPClientTransport(new URL(endpoint), { requestInit: { headers } }), { timeout: CONNECT_TIMEOUT_MS });
    return c;
  };
  return {
    /** `fn` on the connection; a failure that is not the server's JSON-RPC answer drops it */
    async use<T>(fn: (c: Client) => Promise<T>): Promise<T> {
      client ??= connect();
      try {
        return await fn(await client);
      } catch (e) {
        if (!(e instanceof McpError) || e.code === ErrorCode.RequestTimeout || e.code === ErrorCode.ConnectionClosed) client = null;
        throw e;
      }
    },
    async close(): Promise<void> {
      const c = await client?.catch(() => null);
      await c?.close();
    },
  };
}

export async function runMcpStdio({ url, apiKey }: { url: string; apiKey: string | undefined }): Promise<void> {
  const endpoint = `${url.replace(/\/+$/, "")}/api/mcp`;
  const remote = remoteOf(endpoint, apiKey);
  // the server's instructions, when it answers now; a server down at start is said at the first call
  const instructions = await remote.use(async (c) => c.getInstructions()).catch((e: unknown) => log(explain(e, endpoint, apiKey)));

  /** A list or read, forwarded; a failure to reach the server is a JSON-RPC error saying so. */
  const forward = <T>(fn: (c: Client) => Promise<T>): Promise<T> =>
    remote.use(fn).catch((e: unknown) => {
      throw e instanceof McpError && e.code !== ErrorCode.RequestTimeout ? e : new McpError(ErrorCode.InternalError, explain(e, endpoint, apiKey));
    });

  const server = new Server({ name: "gligabao", version: VERSION }, { capabilities: { tools: {}, resources: {} }, instructions: instructions ?? undefined });
  server.setRequestHandler(ListToolsRequestSchema, (req) => forward((c) => c.listTools(req.params)));
  server.setRequestHandler(CallToolRequestSchema, async (req): Promise<CallToolResult> => {
    try {
      return (await remote.use((c) => c.callTool(req.params, undefined, { timeout: CALL_TIMEOUT_MS }))) as CallToolResult;
    } catch (e) {
      if (e instanceof McpError && e.code !== ErrorCode.RequestTimeout) throw e; // the server's own answer (an unknown tool)
      return { isError: true, content: [{ type: "text", text: explain(e, endpoint, apiKey) }] };
    }
  });
  server.setRequestHandler(ListResourcesRequestSchema, (req) => forward((c) => c.listResources(req.params)));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, (req) => forward((c) => c.listResourceTemplates(req.params)));
  server.setRequestHandler(ReadResourceRequestSchema, (req) => forward((c) => c.readResource(req.params)));

  // until the MCP client closes our stdin (the SDK's transport does not notice by itself)
  const ended = new Promise<void>((resolve) => {
    process.stdin.once("end", resolve);
    process.stdin.once("close", resolve);
    server.onclose = resolve;
  });
  await server.connect(new StdioServerTransport());
  log(`serving MCP on stdio for ${endpoint}`);
  await ended;
  await server.close();
  await remote.close();
}
