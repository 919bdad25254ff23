import { createDataset, deleteDataset, listDatasets } from "../../datasets/datasets";
import {
  CreateDatasetInput,
  DatasetDeletionOutput,
  DatasetOutput,
  DatasetPageOutput,
  DeleteDatasetInput,
  ListDatasetsInput,
} from "../../datasets/schemas";
import { adminProcedure, readProcedure, router, writeProcedure } from "../trpc";

export const datasetsRouter = router({
  list: readProcedure
    .meta({ openapi: { method: "GET", path: "/datasets", tags: ["datasets"], summary: "The caller's datasets, by name" } })
    .input(ListDatasetsInput)
    .output(DatasetPageOutput)
    .query(({ ctx, input }) => listDatasets({ db: ctx.db, scope: ctx.caller, input })),
  create: writeProcedure
    .meta({ openapi: { method: "POST", path: "/datasets", tags: ["datasets"], summary: "Make a dataset" } })
    .input(CreateDatasetInput)
    .output(DatasetOutput)
    .mutation(({ ctx, input }) => createDataset({ db: ctx.db, caller: ctx.caller, input, maxPerTeam: ctx.app.env.GB_MAX_DATASETS_PER_TEAM })),
  // DELETE takes its input from the query string: ?confirm=<the name again>
  delete: adminProcedure
    .meta({ openapi: { method: "DELETE", path: "/datasets/{name}", tags: ["datasets"], summary: "Delete a dataset and all of its memory (confirm: its name again)" } })
    .input(DeleteDatasetInput)
    .output(DatasetDeletionOutput)
    .mutation(({ ctx, input }) => deleteDataset({ db: ctx.db, caller: ctx.caller, input })),
});
