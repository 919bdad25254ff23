import { getEntity, getNeighbourhood, listEntities } from "../../graph/read";
import { EntitiesInput, EntityInput, NeighbourhoodInput } from "../../graph/schemas";
import { readProcedure, router } from "../trpc";

export const graphRouter = router({
  entities: readProcedure.input(EntitiesInput).query(({ ctx, input }) => listEntities({ db: ctx.db, scope: ctx.caller, input })),
  entity: readProcedure.input(EntityInput).query(({ ctx, input }) => getEntity({ db: ctx.db, scope: ctx.caller, input })),
  neighbourhood: readProcedure
    .input(NeighbourhoodInput)
    .query(({ ctx, input }) => getNeighbourhood({ db: ctx.db, scope: ctx.caller, input })),
});
