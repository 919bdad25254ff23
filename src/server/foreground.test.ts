import http from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { beginForeground, foregroundInFlight, installForegroundCount, parkedWhile, yieldToForeground } from "./foreground";

const since = (t: number) => performance.now() - t;

describe("requests first, background work in the gaps", () => {
  it("goes on at once when no request is in flight", async () => {
    const t = performance.now();
    await yieldToForeground(1_000);
    expect(since(t)).toBeLessThan(200);
  });

  it("waits for the requests in flight to end", async () => {
    const end = beginForeground();
    setTimeout(end, 120);
    const t = performance.now();
    await yieldToForeground(5_000);
    expect(since(t)).toBeGreaterThanOrEqual(100);
    expect(since(t)).toBeLessThan(2_000);
    expect(foregroundInFlight().inFlight).toBe(0);
  });

  it("goes on after maxMs under a request that does not end", async () => {
    const end = beginForeground();
    try {
      const t = performance.now();
      await yieldToForeground(80);
      expect(since(t)).toBeGreaterThanOrEqual(70);
      expect(since(t)).toBeLessThan(2_000);
    } finally {
      end();
      end(); // a second end does nothing
    }
    expect(foregroundInFlight().inFlight).toBe(0);
  });

  it("a request parked on background work does not hold the background back", async () => {
    const end = beginForeground();
    let release!: () => void;
    const waiting = parkedWhile(new Promise<void>((r) => (release = r)));
    const t = performance.now();
    await yieldToForeground(5_000);
    expect(since(t)).toBeLessThan(1_000);
    expect(foregroundInFlight()).toEqual({ inFlight: 1, parked: 1 });
    release();
    await waiting;
    expect(foregroundInFlight().parked).toBe(0);
    end();
  });

  it("counts the requests of an http.Server from arrival to the response's close", async () => {
    installForegroundCount();
    let answer!: () => void;
    const server = http.createServer((_req, res) => {
      answer = () => res.end("ok");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const response = fetch(`http://127.0.0.1:${port}/`).then((r) => r.text());
      await expect.poll(() => foregroundInFlight().inFlight).toBe(1);
      let yielded = false;
      const background = yieldToForeground(10_000).then(() => (yielded = true));
      await new Promise((r) => setTimeout(r, 100));
      expect(yielded).toBe(false);
      answer();
      expect(await response).toBe("ok");
      await background;
      expect(foregroundInFlight().inFlight).toBe(0);
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});
