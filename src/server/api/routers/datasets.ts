import { createDataset, listDatasets } from "../../datasets/datasets";
import { CreateDatasetInput } from "../../datasets/schemas";
import { publicProcedure, router } from "../trpc";

export const datasetsRouter = router({
  list: publicProcedure.query(({ ctx }) => listDatasets({ db: ctx.db })),
  create: publicProcedure
    .input(CreateDatasetInput)
    .mutation(({ ctx, input }) => createDataset({ db: ctx.db, input })),
});
