import { getApp, health } from "@/server/app";

export const dynamic = "force-dynamic";

export async function GET(): Promise<Response> {
  return Response.json(await health(await getApp()));
}
