import { describe, expect, it } from "vitest";
import { CHANNEL, type Request } from "./ipc";
import { primaryStores } from "./primary";

/*
 * What npm start's primary holds for its workers (the IPC calls' other end; e2e/workers.spec.ts
 * runs the whole: two workers on one port).
 */
describe("the primary's stores", () => {
  const request = (op: string, ...args: unknown[]): Request => ({ channel: CHANNEL, id: `${op}-${Math.random()}`, op, args });

  it("keeps short-term memory's messages for every worker, by epoch, and evicts a user's", async () => {
    const stores = primaryStores(1024 * 1024);
    const a = { cacheKey: "d1 shortterm:user:u1:c1", epoch: "e1" };
    const b = { cacheKey: "d1 shortterm:server:s1:c1", epoch: "e1" };
    const msg = (content: string, userId: string) => ({ role: "user", content, at: "2026-01-01T00:00:00Z", userId });
    expect((await stores.handle(request("stm.append", [a, b], [msg("hi", "u1")], 5))).ok).toBe(true);
    await stores.handle(request("stm.append", [b], [msg("yo", "u2")], 5));
    const read = await stores.handle(request("stm.read", [a, b, { ...a, epoch: "e2" }]));
    expect(read).toMatchObject({ channel: CHANNEL, ok: true, value: [[msg("hi", "u1")], [msg("hi", "u1"), msg("yo", "u2")], []] });
    await stores.handle(request("stm.evictUser", "d1", "u1", ["shortterm:user:u1:c1"]));
    expect((await stores.handle(request("stm.read", [a, b]))).value).toEqual([[], [msg("yo", "u2")]]);
    stores.close();
  });

  it("counts the sign-in limit's windows across workers and says when to retry", async () => {
    let t = 1_000_000;
    const stores = primaryStores(1024, () => t);
    const rule = { window: 60, max: 2 };
    const consume = async (key: string) => (await stores.handle(request("auth.consume", key, rule))).value;
    expect(await consume("1.2.3.4/sign-in")).toEqual({ allowed: true, retryAfter: null });
    expect(await consume("1.2.3.4/sign-in")).toEqual({ allowed: true, retryAfter: null });
    t += 15_000;
    expect(await consume("1.2.3.4/sign-in")).toEqual({ allowed: false, retryAfter: 45 });
    // another client is counted apart; a new window starts afresh
    expect(await consume("5.6.7.8/sign-in")).toEqual({ allowed: true, retryAfter: null });
    t += 45_000;
    expect(await consume("1.2.3.4/sign-in")).toEqual({ allowed: true, retryAfter: null });
    stores.close();
  });

  it("refuses a call it does not know, and says which", async () => {
    const stores = primaryStores(1024);
    expect(await stores.handle(request("stm.drop"))).toMatchObject({ ok: false, error: "no such call: stm.drop" });
    stores.close();
  });
});
