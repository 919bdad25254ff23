import { type McpServer, ResourceTemplate } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { ReadResourceResult } from "@modelcontextprotocol/sdk/types.js";
import { allDatasets, resolveDataset } from "../datasets/datasets";
import { listEntities } from "../graph/read";
import { resourceError } from "./errors";
import type { ToolContext } from "./tools";

/*
 * The datasets the caller sees, as resources: gligabao://datasets (the list) and
 * gligabao://datasets/{name} (one, with its first entities by name). Another team's dataset is
 * not listed, and reading it is "not found", as everywhere (resolveDataset).
 */

export const DATASETS_URI = "gligabao://datasets";
const JSON_TYPE = "application/json";
/** the entities a dataset's resource shows */
const ENTITIES_SHOWN = 50;

const datasetUri = (name: string) => `${DATASETS_URI}/${name}`;

async function read(uri: URL, value: () => Promise<object>): Promise<ReadResourceResult> {
  try {
    return { contents: [{ uri: uri.href, mimeType: JSON_TYPE, text: JSON.stringify(await value()) }] };
  } catch (e) {
    throw resourceError(uri.href, e);
  }
}

export function registerResources(server: McpServer, { app, caller }: ToolContext): void {
  const db = app.database.db;
  const datasets = () => allDatasets({ db, scope: caller });

  server.registerResource(
    "datasets",
    DATASETS_URI,
    { title: "Datasets", description: "The datasets (memory spaces) this key can use: name, uri, createdAt.", mimeType: JSON_TYPE },
    (uri) => read(uri, async () => ({ datasets: (await datasets()).map((d) => ({ name: d.name, uri: datasetUri(d.name), createdAt: d.createdAt })) })),
  );

  const template = new ResourceTemplate(`${DATASETS_URI}/{name}`, {
    list: async () => {
      try {
        return { resources: (await datasets()).map((d) => ({ uri: datasetUri(d.name), name: d.name, mimeType: JSON_TYPE })) };
      } catch (e) {
        throw resourceError(DATASETS_URI, e);
      }
    },
  });
  server.registerResource(
    "dataset",
    template,
    { title: "Dataset", description: `One dataset: its name, createdAt and its first ${ENTITIES_SHOWN} entities by name.`, mimeType: JSON_TYPE },
    (uri, { name }) =>
      read(uri, async () => {
        const dataset = String(name);
        const ds = await resolveDataset(db, dataset, caller);
        const { items } = await listEntities({ db, scope: caller, input: { dataset, limit: ENTITIES_SHOWN } });
        return { name: ds.name, createdAt: ds.createdAt, entities: items.map((e) => ({ id: e.id, name: e.name, type: e.type })) };
      }),
  );
}
