"use client";

import { useQuery } from "@tanstack/react-query";
import { ErrorNote, Loading } from "@/app/_components/status";
import { useTRPC } from "@/trpc/client";
import { useSession } from "@/trpc/session";
import { PageHead } from "../../_components/page-head";
import { AddMemberForm } from "./_components/add-member-form";
import { MembersTable } from "./_components/members-table";

/** /admin/members: who is in the team with which role; admins add, re-role and remove people. */
export function MembersView() {
  const trpc = useTRPC();
  const { me, isAdmin } = useSession();
  const members = useQuery(trpc.teams.members.queryOptions());
  return (
    <main>
      <PageHead title="Members">
        Roles, weakest first: <strong>viewer</strong> reads, <strong>member</strong> also writes memory, <strong>admin</strong> also manages
        keys and members, <strong>owner</strong> also manages admins.
      </PageHead>
      {members.isPending && <Loading />}
      {members.error && <ErrorNote error={members.error} action="see the members" />}
      {members.data && me.data && (
        <>
          <section className="card" aria-labelledby="members-title">
            <h2 id="members-title">Team members</h2>
            <MembersTable members={members.data} me={me.data} canManage={isAdmin} />
          </section>
          {isAdmin ? (
            <section className="card" aria-labelledby="add-member-title">
              <h2 id="add-member-title">Add member</h2>
              <AddMemberForm myRole={me.data.role} />
            </section>
          ) : (
            <p className="muted">Only an admin or owner of the team can add or change members.</p>
          )}
        </>
      )}
    </main>
  );
}
