import { docsPage } from "@/server/api/docs";

export const dynamic = "force-dynamic";

/** The REST API's reference (Scalar, served from here). */
export function GET(): Response {
  return docsPage();
}
