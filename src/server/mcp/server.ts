import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { App } from "../app";
import type { Caller } from "../auth/caller";
import { registerResources } from "./resources";
import { registerTools } from "./tools";

const INSTRUCTIONS =
  "gligabao is a memory service. Long-term memory: remember stores texts (facts are extracted in the background), " +
  "query answers questions from them with cited sources, search_memory finds entities by name, forget erases a person. " +
  "Short-term memory of a conversation: stm_update keeps a turn's messages, stm_context reads them back for the next turn. " +
  "Every tool takes a dataset: list_datasets (or the gligabao://datasets resource) names those this key can use.";

/** The MCP server of one caller (one request): every tool and resource acts as that caller. */
export function createMcpServer(app: App, caller: Caller): McpServer {
  const server = new McpServer({ name: "gligabao", version: "0.1.0" }, { instructions: INSTRUCTIONS });
  registerTools(server, { app, caller });
  registerResources(server, { app, caller });
  return server;
}
