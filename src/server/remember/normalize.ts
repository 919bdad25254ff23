/**
 * Keys for comparing names and literal values: case, accents, punctuation and a leading
 * article folded, so "The Acme Corp." and "acme corp" meet.
 */
export function nameKey(name: string): string {
  return name
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "")
    .toLowerCase()
    .replace(/['’]s\b/g, "s")
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim()
    .replace(/^(the|a|an) /, "");
}

export function uniqueKeys(names: readonly string[]): string[] {
  return [...new Set(names.map(nameKey).filter((k) => k.length > 0))];
}
