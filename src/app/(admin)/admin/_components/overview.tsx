import Link from "next/link";
import { AdminLinks } from "@/app/_components/nav-links";
import type { RouterOutputs } from "@/trpc/types";
import { PageHead } from "../../_components/page-head";

type Me = RouterOutputs["account"]["me"];

const about: Record<(typeof AdminLinks)[number]["href"], string> = {
  "/admin/keys": "Make and revoke the API keys your applications call gligabao with.",
  "/admin/members": "Add people to the team and choose what each may do.",
  "/admin/audit": "Who did what and when: keys, members, sign-ins.",
};

export function Overview({ me }: { me: Me }) {
  const team = me.teams.find((t) => t.id === me.teamId)?.name ?? me.teamId;
  return (
    <>
      <PageHead title="Admin">
        Signed in as <strong>{me.label}</strong>, {me.role} of the team <strong>{team}</strong>.
      </PageHead>
      <ul className="tiles">
        {AdminLinks.map((l) => (
          <li key={l.href} className="card">
            <Link href={l.href} className="tile-link">
              {l.label}
            </Link>
            <p className="muted">{about[l.href]}</p>
          </li>
        ))}
      </ul>
    </>
  );
}
