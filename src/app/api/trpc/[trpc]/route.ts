import { getApp } from "@/server/app";
import { handleTrpc } from "@/server/api/http";

export const dynamic = "force-dynamic";

const handler = async (req: Request) => handleTrpc(req, await getApp());
export { handler as GET, handler as POST };
