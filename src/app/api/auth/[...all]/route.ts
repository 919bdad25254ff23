import { getApp } from "@/server/app";

export const dynamic = "force-dynamic";

/** better-auth's endpoints: sign-up (first owner only), sign-in, sign-out, session. */
const handler = async (req: Request) => (await getApp()).auth.handler(req);
export { handler as GET, handler as POST };
