import { z } from "zod";

/**
 * JSON schema for OpenAI structured outputs, from our zod schemas. `z.toJSONSchema` does the
 * conversion; we then drop keywords strict mode rejects or that say nothing useful here
 * (minLength, the ±2^53 bounds zod puts on every int, $schema). zod still checks all of them
 * on the way back, so nothing is lost. (openai's own zodResponseFormat works with zod 4.6 too,
 * but keeps minLength.)
 */
const KEEP = new Set([
  "type", "properties", "required", "additionalProperties", "items", "enum", "const", "anyOf",
  "description", "$ref", "$defs", "definitions",
]);

function clean(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(clean);
  if (node === null || typeof node !== "object") return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (!KEEP.has(key)) continue;
    // property names are data, not keywords: keep them all, clean their schemas
    if (key === "properties" || key === "$defs" || key === "definitions") {
      out[key] = Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, clean(v)]));
    } else out[key] = clean(value);
  }
  return out;
}

export function strictJsonSchema(schema: z.ZodType): Record<string, unknown> {
  return clean(z.toJSONSchema(schema, { target: "draft-7" })) as Record<string, unknown>;
}

/** "facts.0.subject: Too small: expected string to have >=1 characters" */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((i) => `${i.path.map(String).join(".") || "(root)"}: ${i.message}`)
    .join("; ");
}
