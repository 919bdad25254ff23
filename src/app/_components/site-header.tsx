"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import { databaseLabel, modelsLabel } from "@/lib/format";
import { useSession } from "@/trpc/session";
import { AdminLinks } from "./nav-links";
import { SignOutButton } from "./sign-out-button";
import { TeamSwitcher } from "./team-switcher";

function AccountLinks() {
  const pathname = usePathname();
  const { me, signedOut, needsFirstOwner } = useSession();
  if (signedOut) {
    return (
      <nav aria-label="Account" className="nav">
        <Link href="/admin">{needsFirstOwner ? "Create the first owner" : "Sign in"}</Link>
      </nav>
    );
  }
  if (!me.data) return null;
  return (
    <nav aria-label="Admin" className="nav">
      <Link href="/admin" aria-current={pathname === "/admin" ? "page" : undefined}>
        Admin
      </Link>
      <span aria-hidden="true" className="muted">
        ▸
      </span>
      {AdminLinks.map((l) => (
        <Link key={l.href} href={l.href} aria-current={pathname.startsWith(l.href) ? "page" : undefined}>
          {l.label}
        </Link>
      ))}
    </nav>
  );
}

function Account() {
  const { me } = useSession();
  const m = me.data;
  if (!m) return null;
  // the local (GB_AUTH=off) caller belongs to no team row: say the id
  const team = m.teams.find((t) => t.id === m.teamId)?.name ?? `team ${m.teamId}`;
  return (
    <div className="account" data-testid="account">
      <span className="who">{m.label}</span>
      <span className="badge">{m.role}</span>
      {m.teams.length > 1 ? (
        <TeamSwitcher teams={m.teams} current={m.teamId} />
      ) : (
        <span className="muted" title="team">
          {team}
        </span>
      )}
      {m.kind === "user" && <SignOutButton />}
    </div>
  );
}

/** On every page: where you are, who you are, and what this instance runs on. */
export function SiteHeader() {
  const { health, authOff } = useSession();
  const h = health.data;
  return (
    <header className="site-header">
      {authOff && (
        <p className="auth-off" data-testid="auth-off" role="status">
          Auth is off (GB_AUTH=off): everyone is the owner
        </p>
      )}
      <div className="bar">
        <div className="brand-block">
          <Link href="/" className="brand">
            gligabao
          </Link>
          {h && (
            <span className="instance muted" data-testid="instance">
              {modelsLabel(h.models)} · {databaseLabel(h.db)}
            </span>
          )}
        </div>
        <AccountLinks />
        <div className="spacer" />
        <Account />
      </div>
    </header>
  );
}
