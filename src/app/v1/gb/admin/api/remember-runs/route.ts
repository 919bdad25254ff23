import { getApp } from "@/server/app";
import { handleRunsRest } from "@/server/api/rest";
import { admitted } from "@/server/requests";

export const dynamic = "force-dynamic";

export async function GET(req: Request): Promise<Response> {
  const app = await getApp();
  return admitted(app.requests, () => handleRunsRest("remember", req, app));
}
