import { actorOf, recordAudit } from "../auth/audit";
import type { Caller } from "../auth/caller";
import type { Db } from "../db/client";
import { allDatasets, resolveDataset } from "../datasets/datasets";
import { type PurgeReceipt, purgeSubject } from "./purge";
import type { PurgeInput } from "./schemas";
import type { MessageCache } from "../stm/cache";

/** subjects.purge: the caller's datasets (or one), the purge in batches (purge.ts), then its audit event. */
export async function purge({ db, caller, input, stmCache }: { db: Db; caller: Caller; input: PurgeInput; stmCache?: MessageCache }): Promise<PurgeReceipt> {
  const datasets = input.dataset ? [await resolveDataset(db, input.dataset, caller)] : await allDatasets({ db, scope: caller });
  const subject = input.userId !== undefined ? { userId: input.userId } : { entityId: input.entityId ?? "" };
  const actor = actorOf(caller);
  return purgeSubject({
    db,
    datasets,
    subject,
    actor,
    stmCache,
    record: (tx, receipt) =>
      recordAudit(tx, {
        teamId: caller.teamId,
        actor,
        action: "subject.purge",
        target: `${receipt.subject.kind} ${receipt.subject.ref}`,
        details: { receiptId: receipt.id, datasets: receipt.datasets, deleted: receipt.deleted, redacted: receipt.redacted },
        // the datasets searched (those purged are among them)
        datasetIds: datasets.map((d) => d.id),
      }),
  });
}
