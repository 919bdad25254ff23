import { getEntity, getNeighbourhood, listEntities } from "../../graph/read";
import { EntitiesInput, EntityInput, NeighbourhoodInput } from "../../graph/schemas";
import { publicProcedure, router } from "../trpc";

export const graphRouter = router({
  entities: publicProcedure.input(EntitiesInput).query(({ ctx, input }) => listEntities({ db: ctx.db, input })),
  entity: publicProcedure.input(EntityInput).query(({ ctx, input }) => getEntity({ db: ctx.db, input })),
  neighbourhood: publicProcedure.input(NeighbourhoodInput).query(({ ctx, input }) => getNeighbourhood({ db: ctx.db, input })),
});
