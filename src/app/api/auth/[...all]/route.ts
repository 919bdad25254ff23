import { getApp } from "@/server/app";
import { admitted } from "@/server/requests";

export const dynamic = "force-dynamic";

/** better-auth's endpoints: sign-up (first owner only), sign-in, sign-out, session. */
const handler = async (req: Request) => {
  const app = await getApp();
  return admitted(app.requests, () => app.auth.handler(req));
};
export { handler as GET, handler as POST };
