import { createDataset, deleteDataset, listDatasets } from "../../datasets/datasets";
import { CreateDatasetInput, DeleteDatasetInput } from "../../datasets/schemas";
import { adminProcedure, readProcedure, router, writeProcedure } from "../trpc";

export const datasetsRouter = router({
  list: readProcedure.query(({ ctx }) => listDatasets({ db: ctx.db, scope: ctx.caller })),
  create: writeProcedure.input(CreateDatasetInput).mutation(({ ctx, input }) => createDataset({ db: ctx.db, caller: ctx.caller, input })),
  delete: adminProcedure.input(DeleteDatasetInput).mutation(({ ctx, input }) => deleteDataset({ db: ctx.db, caller: ctx.caller, input })),
});
