import { getApp } from "@/server/app";
import { handleRestV1 } from "@/server/api/openapi";

export const dynamic = "force-dynamic";

/** The REST API (/api/v1/…, described at /api/openapi.json). */
const handler = async (req: Request) => handleRestV1(req, await getApp());
export { handler as GET, handler as POST, handler as PUT, handler as PATCH, handler as DELETE };
