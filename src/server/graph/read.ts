import { and, asc, eq, gt, ilike, or, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { queryRows } from "../db/rows";
import { entities } from "../db/schema";
import type { Scope } from "../auth/caller";
import { resolveDataset } from "../datasets/datasets";
import { decodeCursor, encodeCursor } from "../cursor";
import { NotFoundError } from "../errors";
import { nameKey } from "../text/name-key";
import type { EntitiesInput, EntityInput, NeighbourhoodInput } from "./schemas";
import { type EntityView, factRow, factSelect, type FactView, toFactView } from "./shape";

const entityView = {
  id: entities.id,
  name: entities.name,
  type: entities.type,
  aliases: entities.aliases,
  summary: entities.summary,
  lat: entities.lat,
  lon: entities.lon,
  country: entities.country,
  geoId: entities.geoId,
  createdAt: entities.createdAt,
  createdRunId: entities.createdRunId,
  updatedAt: entities.updatedAt,
};

/** graph.entities: a dataset's entities by name, optionally those whose name or alias matches. */
export async function listEntities({ db, scope, input }: { db: Db; scope: Scope; input: EntitiesInput }): Promise<{ items: EntityView[]; nextCursor: string | null }> {
  const ds = await resolveDataset(db, input.dataset, scope);
  const after = input.cursor ? decodeCursor(input.cursor, ["text", "uuid"]) : null; // [name, id] of the last row
  const search = input.search ? `%${nameKey(input.search).replace(/[%_]/g, "")}%` : null;
  const rows = await db
    .select(entityView)
    .from(entities)
    .where(
      and(
        eq(entities.datasetId, ds.id),
        search ? or(ilike(entities.nameKey, search), sql`EXISTS (SELECT 1 FROM unnest(${entities.aliasKeys}) a WHERE a ILIKE ${search})`) : undefined,
        after ? or(gt(entities.name, after[0]), and(eq(entities.name, after[0]), gt(entities.id, after[1]))) : undefined,
      ),
    )
    .orderBy(asc(entities.name), asc(entities.id))
    .limit(input.limit + 1);
  const items = rows.slice(0, input.limit);
  const last = items.at(-1);
  const nextCursor = rows.length > input.limit && last ? encodeCursor([last.name, last.id]) : null;
  return { items, nextCursor };
}

async function findEntity(db: Db, datasetId: string, id: string): Promise<EntityView> {
  const [row] = await db.select(entityView).from(entities).where(and(eq(entities.datasetId, datasetId), eq(entities.id, id))).limit(1);
  if (!row) throw new NotFoundError("entity", id);
  return row;
}

/** graph.entity: the entity with its current and past facts, either end, newest first. */
export async function getEntity({ db, scope, input }: { db: Db; scope: Scope; input: EntityInput }): Promise<{ entity: EntityView; current: FactView[]; past: FactView[] }> {
  const ds = await resolveDataset(db, input.dataset, scope);
  const entity = await findEntity(db, ds.id, input.id);
  const rows = await queryRows(
    db,
    sql`${factSelect} WHERE f.dataset_id = ${ds.id} AND (f.subject_id = ${input.id} OR f.object_id = ${input.id})
        ORDER BY f.created_at DESC, f.id LIMIT 1000`,
    factRow,
  );
  const all = rows.map(toFactView);
  return { entity, current: all.filter((f) => f.current), past: all.filter((f) => !f.current) };
}

export interface Neighbourhood {
  nodes: (EntityView & { depth: number })[];
  /** current facts between the nodes */
  edges: FactView[];
}

/** graph.neighbourhood: the entities within `depth` current facts of one, and those facts. */
export async function getNeighbourhood({ db, scope, input }: { db: Db; scope: Scope; input: NeighbourhoodInput }): Promise<Neighbourhood> {
  const ds = await resolveDataset(db, input.dataset, scope);
  const root = await findEntity(db, ds.id, input.id);
  const depthOf = new Map<string, number>([[root.id, 0]]);
  const edges = new Map<string, FactView>();
  let frontier = [root.id];
  for (let depth = 1; depth <= input.depth && frontier.length > 0 && edges.size < input.limit; depth++) {
    const ids = JSON.stringify(frontier);
    const rows = await queryRows(
      db,
      sql`${factSelect} WHERE f.dataset_id = ${ds.id} AND f.expired_at IS NULL
          AND (f.subject_id IN (SELECT (jsonb_array_elements_text(${ids}::jsonb))::uuid)
               OR f.object_id IN (SELECT (jsonb_array_elements_text(${ids}::jsonb))::uuid))
          ORDER BY f.created_at DESC LIMIT ${input.limit - edges.size}`,
      factRow,
    );
    const next: string[] = [];
    for (const f of rows.map(toFactView)) {
      edges.set(f.id, f);
      for (const end of [f.subject.id, f.object?.id]) {
        if (end && !depthOf.has(end)) {
          depthOf.set(end, depth);
          next.push(end);
        }
      }
    }
    frontier = next;
  }
  const others = [...depthOf.keys()].filter((id) => id !== root.id);
  const rows = others.length
    ? await db
        .select(entityView)
        .from(entities)
        .where(and(eq(entities.datasetId, ds.id), sql`${entities.id} IN (SELECT (jsonb_array_elements_text(${JSON.stringify(others)}::jsonb))::uuid)`))
    : [];
  const nodes = [root, ...rows].map((e) => ({ ...e, depth: depthOf.get(e.id) ?? 0 }));
  return { nodes, edges: [...edges.values()] };
}
