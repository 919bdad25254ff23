import type { ExtractedEntity } from "../types";
import { CORP_SUFFIXES, HONORIFICS } from "./lexicon";

/** Types more specific than "thing" win when the same name is seen twice. */
const VAGUE_TYPES = new Set(["", "thing"]);

interface Entry {
  name: string;
  type: string;
  aliases: Set<string>;
}

/** "Acme Corp." → "Acme"; null when the name has no company-form suffix. */
export function stripCorporateSuffix(name: string): string | null {
  const parts = name.split(/\s+/);
  let n = parts.length;
  while (n > 1 && CORP_SUFFIXES.has(parts[n - 1]!.toLowerCase().replace(/,$/, ""))) n -= 1;
  return n < parts.length ? parts.slice(0, n).join(" ").replace(/,$/, "") : null;
}

/** "Alice Smith" → "Alice", "Dr. Smith" → "Smith"; null for one-word names. */
export function personAlias(name: string): string | null {
  const parts = name.split(/\s+/);
  if (parts.length < 2 || /['’]s\b/.test(name)) return null; // "Marta's mom" is not a full name
  if (HONORIFICS.has(parts[0]!.toLowerCase())) return parts.slice(1).join(" ");
  return parts[0]!;
}

/**
 * The entities of one extraction. Names are matched case-insensitively; at the end a short
 * name that is the alias of exactly one longer entity ("Alice" of "Alice Smith", "Acme" of
 * "Acme Corp") is merged into it, and `canonical` maps every name seen to the name kept.
 */
export class EntityRegistry {
  private readonly entries = new Map<string, Entry>();

  add(name: string, type: string): void {
    const key = name.toLowerCase();
    const e = this.entries.get(key);
    if (!e) this.entries.set(key, { name, type, aliases: new Set() });
    else if (VAGUE_TYPES.has(e.type) && !VAGUE_TYPES.has(type)) e.type = type;
  }

  /** A name the text declares for an entity already added ("Robert, also known as Bob"). */
  addAlias(name: string, alias: string): void {
    const e = this.entries.get(name.toLowerCase());
    if (e && alias.toLowerCase() !== e.name.toLowerCase()) e.aliases.add(alias);
  }

  finish(): { entities: ExtractedEntity[]; canonical: (name: string) => string } {
    for (const e of this.entries.values()) {
      const corp = stripCorporateSuffix(e.name);
      if (corp) {
        e.type = "organization"; // a company form settles the type whatever the tagger said
        e.aliases.add(corp);
      } else if (e.type === "person") {
        const first = personAlias(e.name);
        if (first) e.aliases.add(first);
      }
    }
    const owners = new Map<string, Entry[]>();
    for (const e of this.entries.values()) {
      for (const a of e.aliases) owners.set(a.toLowerCase(), [...(owners.get(a.toLowerCase()) ?? []), e]);
    }
    const merged = new Map<string, string>();
    for (const [key, e] of this.entries) {
      const targets = owners.get(key);
      const target = targets?.length === 1 ? targets[0]! : null;
      if (!target || target === e || !(VAGUE_TYPES.has(e.type) || e.type === target.type)) continue;
      merged.set(key, target.name);
      // what was declared for the short name holds for the long one ("Robert, aka Bob" + "Robert Smith")
      for (const a of e.aliases) if (a.toLowerCase() !== target.name.toLowerCase()) target.aliases.add(a);
      this.entries.delete(key);
    }
    const entities = [...this.entries.values()].map((e) => ({
      name: e.name,
      type: VAGUE_TYPES.has(e.type) ? "thing" : e.type,
      aliases: [...e.aliases],
    }));
    const canonical = (name: string): string => {
      let key = name.toLowerCase();
      // follow merges: "Bob" → "Robert" (declared alias) → "Robert Smith" (first name)
      for (let hops = 0; merged.has(key) && hops < 10; hops += 1) key = merged.get(key)!.toLowerCase();
      return this.entries.get(key)?.name ?? name;
    };
    return { entities, canonical };
  }
}
