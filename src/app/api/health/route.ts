import { getApp, health } from "@/server/app";

export const dynamic = "force-dynamic";

/** The app's health; the header says which app process answered (npm start runs several with GB_WORKERS). */
export async function GET(): Promise<Response> {
  return Response.json(await health(await getApp()), { headers: { "x-gligabao-process": String(process.pid) } });
}
