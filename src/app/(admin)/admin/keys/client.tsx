"use client";

import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { ErrorNote, Loading } from "@/app/_components/status";
import { useTRPC } from "@/trpc/client";
import { useSession } from "@/trpc/session";
import { PageHead } from "../../_components/page-head";
import { CreateKeyForm } from "./_components/create-key-form";
import { KeysTable } from "./_components/keys-table";
import { NewKeyPanel } from "./_components/new-key-panel";

/** /admin/keys: the team's API keys; admins make and revoke them. */
export function KeysView() {
  const trpc = useTRPC();
  const { me } = useSession();
  const keys = useQuery(trpc.keys.list.queryOptions());
  const [created, setCreated] = useState<{ name: string; secret: string } | null>(null);
  return (
    <main>
      <PageHead title="API keys">
        Applications call the API with <code>Authorization: Bearer &lt;key&gt;</code>. A key acts for this team with its role, on all
        of the team&apos;s datasets or only some.
      </PageHead>
      {keys.isPending && <Loading />}
      {keys.error && <ErrorNote error={keys.error} action="see the keys" />}
      {keys.data && me.data && (
        <>
          {created && <NewKeyPanel {...created} onDone={() => setCreated(null)} />}
          <section className="card" aria-labelledby="create-key-title">
            <h2 id="create-key-title">Create a key</h2>
            <CreateKeyForm myRole={me.data.role} onCreated={setCreated} />
          </section>
          <section className="card" aria-labelledby="keys-title">
            <h2 id="keys-title">Keys</h2>
            <KeysTable keys={keys.data} />
          </section>
        </>
      )}
    </main>
  );
}
