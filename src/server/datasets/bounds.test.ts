import { randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import { expect, it } from "vitest";
import type { Caller } from "../auth/caller";
import { queryRows } from "../db/rows";
import { callerFor, rejection } from "../../test/callers";
import { describeEachDriver } from "../../test/db";

/*
 * A team's datasets are capped (GB_MAX_DATASETS_PER_TEAM, 5 here), concurrent creates included,
 * and datasets.list pages. Each test makes a team of its own, so the counts are its own.
 */

const CAP = 5;

describeEachDriver(
  "datasets: the cap per team and the pages of datasets.list",
  (ctx) => {
    /** a fresh team and its owner */
    async function team(): Promise<Caller> {
      const id = `team-${randomUUID().slice(0, 8)}`;
      await ctx().app.database.db.execute(sql`INSERT INTO gb_teams (id, name) VALUES (${id}, ${id})`);
      return { kind: "user", id: `owner-${id}`, label: `${id}@test`, teamId: id, role: "owner", datasetIds: null };
    }
    const countOf = async (teamId: string) => {
      const [row] = await queryRows<{ n: number }>(ctx().app.database.db, sql`SELECT count(*)::int AS n FROM datasets WHERE team_id = ${teamId}`);
      return row?.n ?? 0;
    };

    it("makes datasets up to the cap, then CONFLICT naming the variable; a deletion makes room", async () => {
      const owner = await team();
      const gb = callerFor(ctx().app, owner);
      for (let i = 0; i < CAP; i++) await gb.datasets.create({ name: `d${i}` });
      const past = await rejection(gb.datasets.create({ name: "one-more" }));
      expect(past.code).toBe("CONFLICT");
      expect(past.message).toMatch(/GB_MAX_DATASETS_PER_TEAM/);
      expect(await countOf(owner.teamId)).toBe(CAP);
      // other teams have their own count
      await expect(callerFor(ctx().app, await team()).datasets.create({ name: "d0" })).resolves.toMatchObject({ name: "d0" });
      await gb.datasets.delete({ name: "d0", confirm: "d0" });
      await expect(gb.datasets.create({ name: "one-more" })).resolves.toMatchObject({ name: "one-more" });
    });

    it("holds under concurrent creates: exactly the cap is made, the rest are CONFLICT", async () => {
      const owner = await team();
      const gb = callerFor(ctx().app, owner);
      await gb.datasets.create({ name: "first" });
      const results = await Promise.allSettled(Array.from({ length: 12 }, (_, i) => gb.datasets.create({ name: `c${i}` })));
      const made = results.filter((r) => r.status === "fulfilled");
      const refused = await Promise.all(results.filter((r) => r.status === "rejected").map((r) => rejection(Promise.reject(r.reason))));
      expect(made).toHaveLength(CAP - 1);
      expect(refused.map((r) => r.code)).toEqual(Array(12 - (CAP - 1)).fill("CONFLICT"));
      expect(await countOf(owner.teamId)).toBe(CAP);
    });

    it("lists by name a page at a time; the pages together are every dataset, once", async () => {
      const owner = await team();
      const gb = callerFor(ctx().app, owner);
      const names = ["e", "a", "c", "b", "d"];
      for (const name of names) await gb.datasets.create({ name });
      const seen: string[] = [];
      const sizes: number[] = [];
      let cursor: string | undefined;
      do {
        const page = await gb.datasets.list({ cursor, limit: 2 });
        seen.push(...page.items.map((d) => d.name));
        sizes.push(page.items.length);
        cursor = page.nextCursor ?? undefined;
      } while (cursor);
      expect(seen).toEqual(["a", "b", "c", "d", "e"]);
      expect(sizes).toEqual([2, 2, 1]);
      // no input: the first 100
      expect(await gb.datasets.list()).toMatchObject({ items: names.map(() => expect.anything()), nextCursor: null });
      // a page of exactly the rest says there is no more
      expect((await gb.datasets.list({ limit: 5 })).nextCursor).toBeNull();
    });

    it("a restricted caller's pages hold only its datasets", async () => {
      const owner = await team();
      const gb = callerFor(ctx().app, owner);
      const made = [];
      for (const name of ["r1", "r2", "r3", "r4"]) made.push(await gb.datasets.create({ name }));
      const restricted = callerFor(ctx().app, { ...owner, kind: "key", id: randomUUID(), role: "admin", datasetIds: [made[1]!.id, made[3]!.id] });
      const first = await restricted.datasets.list({ limit: 1 });
      expect(first.items.map((d) => d.name)).toEqual(["r2"]);
      const second = await restricted.datasets.list({ limit: 1, cursor: first.nextCursor ?? undefined });
      expect(second).toMatchObject({ items: [{ name: "r4" }], nextCursor: null });
    });

    it.each([
      [{ limit: 0 }, "limit"],
      [{ limit: 501 }, "limit"],
      [{ limit: 2.5 }, "limit"],
      [{ cursor: "not-a-cursor" }, "cursor"],
      [{ cursor: "x".repeat(501) }, "cursor"],
    ])("bad input %j is BAD_REQUEST with its field", async (input, field) => {
      const r = await rejection(callerFor(ctx().app).datasets.list(input));
      expect(r).toMatchObject({ code: "BAD_REQUEST", field });
    });

    it("a bad name is still BAD_REQUEST with the field, also at the cap", async () => {
      const owner = await team();
      const gb = callerFor(ctx().app, owner);
      for (let i = 0; i < CAP; i++) await gb.datasets.create({ name: `n${i}` });
      expect(await rejection(gb.datasets.create({ name: "Not A Slug" }))).toMatchObject({ code: "BAD_REQUEST", field: "name" });
      expect(await rejection(gb.datasets.list({ limit: 10, extra: 1 } as never))).toMatchObject({ code: "BAD_REQUEST" });
    });
  },
  { env: () => ({ GB_MAX_DATASETS_PER_TEAM: String(CAP) }) },
);
