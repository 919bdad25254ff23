/** The admin views in the header, in order. Issue #6 adds the run views here. */
export const AdminLinks = [
  { href: "/admin/keys", label: "Keys" },
  { href: "/admin/members", label: "Members" },
  { href: "/admin/audit", label: "Audit log" },
] as const;
