import type { AnyTRPCRouter } from "@trpc/server";

/*
 * Which inputs turn strings into numbers, booleans and dates, settled once for the life of the
 * process. trpc-to-openapi (the REST API, openapi.ts) sets `coerce` on the number, boolean, bigint
 * and date fields of every input it serves, in place, on each request: so that a query string's
 * "5" reads as 5. The schemas are those tRPC validates with too, so before this, the same tRPC
 * call was refused or accepted depending on whether some REST call had come first:
 * query.ask { radiusKm: "5" } was a BAD_REQUEST on a fresh server and 5 km after one POST /query,
 * and { radiusKm: true } 1 km.
 *
 * Now, when the router is made: the inputs of the REST routes read from a query string (GET,
 * DELETE) coerce from the start, as the library would make them on their first request, and every
 * such field of every REST route's input keeps the setting it has then (the library's writes are
 * dropped). A JSON body has numbers of its own: POST inputs never coerce, over tRPC or REST.
 * The walk is the library's own (trpc-to-openapi utils/zod: coerceSchema and unwrapZodType).
 */

/** The part of a zod 4 schema's internals the walk reads (what the library reads). */
interface Internals {
  _zod?: { def?: Def };
}
interface Def {
  type?: string;
  coerce?: boolean;
  element?: unknown;
  innerType?: unknown;
  getter?: () => unknown;
  shape?: Record<string, unknown>;
}

const COERCIBLE = new Set(["number", "boolean", "bigint", "date"]);
const defOf = (schema: unknown): Def | undefined => (schema as Internals | undefined)?._zod?.def;

/** `schema` without the wrappers the library looks through (array, nullable, optional, default, prefault, lazy) */
function unwrap(schema: unknown): unknown {
  const def = defOf(schema);
  switch (def?.type) {
    case "array":
      return unwrap(def.element);
    case "nullable":
    case "optional":
    case "default":
    case "prefault":
      return unwrap(def.innerType);
    case "lazy":
      return def.getter ? unwrap(def.getter()) : schema;
    default:
      return schema;
  }
}

/** Each coercible field's def of an object schema, nested objects included, as the library visits them. */
function coercibleDefs(schema: unknown, found = new Set<Def>()): Set<Def> {
  const shape = defOf(schema)?.shape;
  for (const field of Object.values(shape ?? {})) {
    const inner = unwrap(field);
    const def = defOf(inner);
    if (def && COERCIBLE.has(def.type ?? "")) found.add(def);
    else if (def?.type === "object") coercibleDefs(inner, found);
  }
  return found;
}

interface ProcedureDef {
  inputs?: unknown[];
  meta?: { openapi?: { method?: string } };
}

/** Settles coercion for every REST route of `router` (see above). Idempotent. */
export function settleCoercion(router: AnyTRPCRouter): void {
  const procedures = Object.values(router._def.procedures as Record<string, { _def: ProcedureDef }>);
  const served = procedures.flatMap((p) => {
    const method = p._def.meta?.openapi?.method;
    // the library merges several inputs into a new object each request; ours have one each
    return method && p._def.inputs?.length === 1 ? [{ method, defs: coercibleDefs(unwrap(p._def.inputs[0])) }] : [];
  });
  // first the query-string routes' fields coerce, then every field keeps what it has
  for (const { method, defs } of served) {
    if (method !== "GET" && method !== "DELETE") continue;
    for (const def of defs) if (Object.getOwnPropertyDescriptor(def, "coerce")?.set === undefined) def.coerce = true;
  }
  for (const { defs } of served) {
    for (const def of defs) {
      if (Object.getOwnPropertyDescriptor(def, "coerce")?.set !== undefined) continue;
      const settled = def.coerce === true;
      Object.defineProperty(def, "coerce", {
        get: () => settled,
        // the library's write, on each request: dropped
        set: () => {},
        enumerable: true,
        configurable: false,
      });
    }
  }
}
