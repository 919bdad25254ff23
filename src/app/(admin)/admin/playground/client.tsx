"use client";

import { useDataset, DatasetSwitcher } from "../../_components/dataset";
import { PageHead } from "../../_components/page-head";
import { AskPanel } from "./_components/ask-panel";
import { RememberPanel } from "./_components/remember-panel";

/** /admin/playground: remember a text and watch its run, then ask about it. */
export function PlaygroundView() {
  const dataset = useDataset();
  return (
    <main>
      <PageHead title="Playground">
        Try the memory by hand: remember a text and follow its run stage by stage, then ask a question and see which facts the answer
        came from.
      </PageHead>
      <DatasetSwitcher />
      {/* keyed: another dataset starts both panels afresh */}
      <RememberPanel key={`remember:${dataset}`} dataset={dataset} />
      <AskPanel key={`ask:${dataset}`} dataset={dataset} />
    </main>
  );
}
