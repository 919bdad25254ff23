import { openApiDocument } from "@/server/api/openapi";

export const dynamic = "force-dynamic";

/** The REST API's OpenAPI 3.1 document: public, like the API's shape. */
export function GET(): Response {
  return Response.json(openApiDocument());
}
