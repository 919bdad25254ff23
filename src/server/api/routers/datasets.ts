import { createDataset, deleteDataset, listDatasets } from "../../datasets/datasets";
import { CreateDatasetInput, DeleteDatasetInput, ListDatasetsInput } from "../../datasets/schemas";
import { adminProcedure, readProcedure, router, writeProcedure } from "../trpc";

export const datasetsRouter = router({
  list: readProcedure.input(ListDatasetsInput).query(({ ctx, input }) => listDatasets({ db: ctx.db, scope: ctx.caller, input })),
  create: writeProcedure
    .input(CreateDatasetInput)
    .mutation(({ ctx, input }) => createDataset({ db: ctx.db, caller: ctx.caller, input, maxPerTeam: ctx.app.env.GB_MAX_DATASETS_PER_TEAM })),
  delete: adminProcedure.input(DeleteDatasetInput).mutation(({ ctx, input }) => deleteDataset({ db: ctx.db, caller: ctx.caller, input })),
});
