import { describe, expect, it } from "vitest";
import { grownEntities, pendingEntitiesFor, pendingWrites, type PendingEntity } from "./pending";
import type { Plan, PlannedEntity } from "./resolve";

const entity = (over: Partial<PlannedEntity> & { id: string; name: string }): PlannedEntity => ({
  isNew: false,
  type: "person",
  aliases: [],
  addedAliases: [],
  keys: [],
  ...over,
});
const plan = (entities: PlannedEntity[], over: Partial<Plan> = {}): Plan => ({ entities, facts: [], duplicates: [], invalidations: [], asked: null, ...over });

describe("pending writes", () => {
  it("adds the aliases of two chunk entities that are one existing entity together", () => {
    const grown = grownEntities(
      plan([
        entity({ id: "r", name: "Robert Smith", aliases: ["Bob"], addedAliases: ["Bob"] }),
        entity({ id: "r", name: "Robert Smith", aliases: ["Robbie"], addedAliases: ["Robbie"] }),
        entity({ id: "a", name: "Ann", aliases: [], addedAliases: [] }),
        entity({ id: "n", name: "New", isNew: true, aliases: ["N"] }),
      ]),
    );
    expect(grown).toEqual([expect.objectContaining({ id: "r", aliases: ["Bob", "Robbie"], addedAliases: ["Bob", "Robbie"] })]);
  });

  it("keeps the stored key and summary of a grown entity, and the keys store gives a new one", () => {
    const w = pendingWrites(
      plan([entity({ id: "r", name: "Robert Smith", aliases: ["Bob", "Bob!"], addedAliases: ["Bob"] }), entity({ id: "z", name: "The Zed", isNew: true, aliases: ["Zeddy", ""] })], {
        invalidations: [{ factId: "old", invalidAt: new Date(0), by: "f" }],
        duplicates: [{ factId: "d1", validAt: new Date(5) }, { factId: "d2", validAt: null }],
      }),
      { entities: [{ id: "r", name: "Robert Smith", nameKey: "robert smith", type: "person", aliases: [], aliasKeys: [], summary: "a baker", via: "exact", forKey: null, score: 1 }], facts: [] },
      new Date(10),
    );
    expect(w.entities).toEqual([
      { id: "z", name: "The Zed", name_key: "zed", type: "person", aliases: ["Zeddy", ""], alias_keys: ["zeddy"], summary: null },
      { id: "r", name: "Robert Smith", name_key: "robert smith", type: "person", aliases: ["Bob", "Bob!"], alias_keys: ["bob"], summary: "a baker" },
    ]);
    expect(w.retired).toEqual(["old"]);
    expect([...w.dated]).toEqual([["d1", new Date(5)]]);
  });

  it("sends a load only the pending entities it may find", () => {
    const e = (id: string, name_key: string, alias_keys: string[] = []): PendingEntity => ({ id, name: id, name_key, type: "person", aliases: [], alias_keys, summary: null });
    const all = [e("exact", "kim novak"), e("alias", "robert", ["bob"]), e("similar", "zed quill"), e("other", "xu")];
    expect(pendingEntitiesFor(all, ["kim novak", "bob", "zed quil"], ["zed quil"]).map((x) => x.id)).toEqual(["exact", "alias", "similar"]);
    // a key too long to be compared by similar name finds exact names only
    expect(pendingEntitiesFor(all, ["zed quil"], []).map((x) => x.id)).toEqual([]);
  });
});
