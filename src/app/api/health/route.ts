import { getApp, health } from "@/server/app";
import { admitted } from "@/server/requests";

export const dynamic = "force-dynamic";

/** The app's health; the header says which app process answered (npm start runs several with GB_WORKERS). */
export async function GET(): Promise<Response> {
  const app = await getApp();
  // 503 while the process stops: a balancer sends the next requests elsewhere
  return admitted(app.requests, async () => Response.json(await health(app), { headers: { "x-gligabao-process": String(process.pid) } }));
}
