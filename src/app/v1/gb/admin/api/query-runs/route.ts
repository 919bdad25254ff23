import { getApp } from "@/server/app";
import { handleRunsRest } from "@/server/api/rest";

export const dynamic = "force-dynamic";

export async function GET(req: Request): Promise<Response> {
  return handleRunsRest("query", req, await getApp());
}
