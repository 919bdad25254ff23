/** Addresses of the admin views that take a dataset: the dataset is always in the URL (?dataset=). */

function href(path: string, dataset: string, more: Record<string, string | null | undefined> = {}): string {
  const params = new URLSearchParams({ dataset });
  for (const [k, v] of Object.entries(more)) if (v) params.set(k, v);
  return `${path}?${params.toString()}`;
}

/** The graph explorer, on an entity when given one; `fact` is highlighted among its facts. */
export const graphHref = (dataset: string, entity?: string | null, fact?: string | null) => href("/admin/graph", dataset, { entity, fact });
export const playgroundHref = (dataset: string) => href("/admin/playground", dataset);
export const rememberRunHref = (dataset: string, id: string) => href(`/admin/remember/${id}`, dataset);
export const queryRunHref = (dataset: string, id: string) => href(`/admin/query/${id}`, dataset);
