import { getApp } from "@/server/app";
import { handleMcp } from "@/server/mcp/http";

export const dynamic = "force-dynamic";

const handler = async (req: Request) => handleMcp(req, await getApp());
export { handler as GET, handler as POST, handler as DELETE };
