import type { ElementDefinition } from "cytoscape";

/*
 * The graph explorer's drawing as plain data: entities and literal values as nodes, facts as
 * edges. Neighbourhoods are merged into it as the reader expands nodes; past a size it stops
 * adding nodes (a drawing of hundreds of nodes is unreadable), and says how many it left out so
 * the page can point to the facts list instead.
 */

/** The parts of graph.neighbourhood the drawing uses (structural, so any superset fits). */
export interface HoodInput {
  nodes: readonly { id: string; name: string; type: string }[];
  edges: readonly {
    id: string;
    predicate: string;
    subject: { id: string };
    object: { id: string } | null;
    objectValue: string | null;
  }[];
}

export interface DrawnNode {
  id: string;
  label: string;
  /** an entity, or the literal value of one fact (e.g. an age) */
  kind: "entity" | "value";
  type: string;
}

export interface DrawnEdge {
  id: string;
  source: string;
  target: string;
  label: string;
}

export interface Drawing {
  nodes: DrawnNode[];
  edges: DrawnEdge[];
  /** ids of the merged neighbourhoods' facts left out because the drawing was full */
  omitted: string[];
}

export const EMPTY_DRAWING: Drawing = { nodes: [], edges: [], omitted: [] };
export const MAX_NODES = 60;
const VALUE_LABEL = 24;

/** "lives_in" → "lives in": predicates read as words on an edge. */
export const predicateLabel = (predicate: string) => predicate.replace(/_/g, " ");

const valueId = (factId: string) => `value:${factId}`;
const shorten = (s: string, max: number) => (s.length > max ? `${s.slice(0, max - 1)}…` : s);

/** `drawing` with `hood` added: new nodes while there is room, then the facts between drawn nodes. */
export function mergeNeighbourhood(drawing: Drawing, hood: HoodInput, maxNodes = MAX_NODES): Drawing {
  const nodes = new Map(drawing.nodes.map((n) => [n.id, n]));
  const edges = new Map(drawing.edges.map((e) => [e.id, e]));
  const room = () => nodes.size < maxNodes;
  // graph.neighbourhood lists its root first: it gets the first place
  for (const n of hood.nodes) {
    if (!nodes.has(n.id) && room()) nodes.set(n.id, { id: n.id, label: n.name, kind: "entity", type: n.type });
  }
  const omitted = new Set(drawing.omitted);
  for (const f of hood.edges) {
    if (edges.has(f.id)) continue;
    let target = f.object?.id ?? null;
    if (!target && f.objectValue !== null && nodes.has(f.subject.id) && room()) {
      target = valueId(f.id);
      nodes.set(target, { id: target, label: shorten(f.objectValue, VALUE_LABEL), kind: "value", type: "value" });
    }
    if (target && nodes.has(f.subject.id) && nodes.has(target)) {
      edges.set(f.id, { id: f.id, source: f.subject.id, target, label: predicateLabel(f.predicate) });
    } else {
      omitted.add(f.id);
    }
  }
  return { nodes: [...nodes.values()], edges: [...edges.values()], omitted: [...omitted] };
}

/** The drawing as cytoscape elements; classes mark the selected entity and the expanded ones. */
export function toElements(drawing: Drawing, { selected, expanded }: { selected: string | null; expanded: ReadonlySet<string> }): ElementDefinition[] {
  const nodes: ElementDefinition[] = drawing.nodes.map((n) => ({
    group: "nodes",
    data: { id: n.id, label: n.label, type: n.type },
    classes: [n.kind, n.id === selected ? "selected-entity" : "", expanded.has(n.id) ? "expanded" : ""].filter(Boolean),
  }));
  const edges: ElementDefinition[] = drawing.edges.map((e) => ({
    group: "edges",
    data: { id: e.id, source: e.source, target: e.target, label: e.label },
  }));
  return [...nodes, ...edges];
}
