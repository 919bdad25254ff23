import { getEntity, getNeighbourhood, listEntities } from "../../graph/read";
import { EntitiesInput, EntitiesOutput, EntityInput, EntityOutput, NeighbourhoodInput, NeighbourhoodOutput } from "../../graph/schemas";
import { getSeries, listSeriesKeys } from "../../enrich/series/read";
import { SeriesInput, SeriesKeysInput, SeriesKeysOutput, SeriesOutput } from "../../enrich/series/schemas";
import { readProcedure, router } from "../trpc";

export const graphRouter = router({
  entities: readProcedure
    .meta({ openapi: { method: "GET", path: "/graph/entities", tags: ["graph"], summary: "A dataset's entities by name (search: part of a name or alias)" } })
    .input(EntitiesInput)
    .output(EntitiesOutput)
    .query(({ ctx, input }) => listEntities({ db: ctx.db, scope: ctx.caller, input })),
  entity: readProcedure
    .meta({ openapi: { method: "GET", path: "/graph/entities/{id}", tags: ["graph"], summary: "An entity with its current and past facts" } })
    .input(EntityInput)
    .output(EntityOutput)
    .query(({ ctx, input }) => getEntity({ db: ctx.db, scope: ctx.caller, input })),
  neighbourhood: readProcedure
    .meta({ openapi: { method: "GET", path: "/graph/neighbourhood", tags: ["graph"], summary: "The entities within depth facts of one, and those facts" } })
    .input(NeighbourhoodInput)
    .output(NeighbourhoodOutput)
    .query(({ ctx, input }) => getNeighbourhood({ db: ctx.db, scope: ctx.caller, input })),
  /** a series' members in order, its numbers per measure (for a chart) and the observations about it */
  series: readProcedure
    .meta({ openapi: { method: "GET", path: "/graph/series", tags: ["graph"], summary: "A series' members, numbers per measure and observations" } })
    .input(SeriesInput)
    .output(SeriesOutput)
    .query(({ ctx, input }) => getSeries({ db: ctx.db, scope: ctx.caller, input })),
  seriesKeys: readProcedure
    .meta({ openapi: { method: "GET", path: "/graph/series-keys", tags: ["graph"], summary: "A dataset's series, the most recently active first" } })
    .input(SeriesKeysInput)
    .output(SeriesKeysOutput)
    .query(({ ctx, input }) => listSeriesKeys({ db: ctx.db, scope: ctx.caller, input })),
});
