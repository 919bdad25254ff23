import { NextResponse, type NextRequest } from "next/server";

/*
 * Next answers 500, with no log, when a dynamic route's path holds percent-encoding that is not
 * UTF-8 (/api/v1/remember/%E0, /api/trpc/%ED%A0%80, /admin/remember/%E0): its own DecodeError
 * is not recognised where it is caught in the built app. A path like that is the client's
 * mistake: 400, said in the REST API's error shape. The matcher keeps every other request away
 * from here (only a path with a "%" in it comes in).
 */
export function proxy(req: NextRequest): NextResponse {
  try {
    decodeURIComponent(req.nextUrl.pathname);
  } catch {
    return NextResponse.json({ code: "BAD_REQUEST", message: "path: is not valid percent-encoded UTF-8" }, { status: 400 });
  }
  return NextResponse.next();
}

export const config = {
  matcher: ["/:path(.*%.*)"],
};
