import { scalarScript } from "@/server/api/docs";

export const dynamic = "force-dynamic";

export function GET(): Response {
  return scalarScript();
}
