/** The admin views in the header, in order: the memory of the chosen dataset, then the team. */
export const AdminLinks = [
  { href: "/admin/remember", label: "Remember" },
  { href: "/admin/query", label: "Query" },
  { href: "/admin/graph", label: "Graph" },
  { href: "/admin/playground", label: "Playground" },
  { href: "/admin/stm", label: "Short-term memory" },
  { href: "/admin/keys", label: "Keys" },
  { href: "/admin/members", label: "Members" },
  { href: "/admin/audit", label: "Audit log" },
] as const;
