import path from "node:path";

/**
 * Where an installed package's file is, by Node's own resolver, taken from the process: in the
 * built app, a `createRequire` imported in our code becomes the bundler's, whose `resolve`
 * answers a module id (a number), not a path. Resolved from this module's place when it is a
 * file, else from the working directory. `what` names the package for the error when it is missing.
 */
export function resolveInstalled(specifier: string, what: string): string {
  const { createRequire } = process.getBuiltinModule("node:module");
  const here = typeof import.meta.url === "string" && import.meta.url.startsWith("file:") ? import.meta.url : null;
  for (const from of [here, path.join(process.cwd(), "package.json")]) {
    if (!from) continue;
    try {
      const found = createRequire(from).resolve(specifier);
      if (typeof found === "string") return found;
    } catch {
      // not found from there: the next place
    }
  }
  throw new Error(`${what} is not installed: run npm ci`);
}
