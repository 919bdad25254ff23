import { getEntity, getNeighbourhood, listEntities } from "../../graph/read";
import { EntitiesInput, EntityInput, NeighbourhoodInput } from "../../graph/schemas";
import { getSeries, listSeriesKeys } from "../../enrich/series/read";
import { SeriesInput, SeriesKeysInput } from "../../enrich/series/schemas";
import { readProcedure, router } from "../trpc";

export const graphRouter = router({
  entities: readProcedure.input(EntitiesInput).query(({ ctx, input }) => listEntities({ db: ctx.db, scope: ctx.caller, input })),
  entity: readProcedure.input(EntityInput).query(({ ctx, input }) => getEntity({ db: ctx.db, scope: ctx.caller, input })),
  neighbourhood: readProcedure
    .input(NeighbourhoodInput)
    .query(({ ctx, input }) => getNeighbourhood({ db: ctx.db, scope: ctx.caller, input })),
  /** a series' members in order, its numbers per measure (for a chart) and the observations about it */
  series: readProcedure.input(SeriesInput).query(({ ctx, input }) => getSeries({ db: ctx.db, scope: ctx.caller, input })),
  seriesKeys: readProcedure.input(SeriesKeysInput).query(({ ctx, input }) => listSeriesKeys({ db: ctx.db, scope: ctx.caller, input })),
});
