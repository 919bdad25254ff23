import { describe, expect, it } from "vitest";
import { isCrossSite } from "../api/http";
import { clientAddress } from "./client-address";

describe("clientAddress: whom the sign-in limit counts", () => {
  it("trusts no forwarded header by default: the connection's address", () => {
    expect(clientAddress("203.0.113.7", "198.51.100.1", 0)).toBe("203.0.113.7");
    expect(clientAddress("203.0.113.7", undefined, 0)).toBe("203.0.113.7");
    // a different forged X-Forwarded-For on every try is still the same client
    const seen = new Set(["1.1.1.1", "2.2.2.2", "3.3.3.3, 4.4.4.4"].map((f) => clientAddress("203.0.113.7", f, 0)));
    expect([...seen]).toEqual(["203.0.113.7"]);
  });

  it("with n trusted proxies, the address n hops left of the connection", () => {
    // client → proxy A (adds client) → proxy B (adds A) → app (sees B)
    expect(clientAddress("10.0.0.2", "198.51.100.9, 10.0.0.1", 2)).toBe("198.51.100.9");
    expect(clientAddress("10.0.0.2", "198.51.100.9, 10.0.0.1", 1)).toBe("10.0.0.1");
    // whatever the client wrote left of what the trusted proxies added is ignored
    expect(clientAddress("10.0.0.1", "6.6.6.6, 198.51.100.9", 1)).toBe("198.51.100.9");
    expect(clientAddress("10.0.0.1", ["6.6.6.6", "198.51.100.9"], 1)).toBe("198.51.100.9");
  });

  it("does not walk past a hop that is not an address, nor past the chain's start", () => {
    expect(clientAddress("10.0.0.1", "not-an-ip", 1)).toBe("10.0.0.1");
    expect(clientAddress("10.0.0.1", "", 3)).toBe("10.0.0.1");
    expect(clientAddress("10.0.0.1", "198.51.100.9", 5)).toBe("198.51.100.9");
    expect(clientAddress(undefined, "198.51.100.9", 1)).toBeNull();
  });
});

describe("isCrossSite: a write from another site's page", () => {
  const h = (init: Record<string, string>) => new Headers(init);
  it("same host, or GB_PUBLIC_URL's host, is the app's own page", () => {
    expect(isCrossSite(h({ host: "mem.example:3000", origin: "http://mem.example:3000" }), undefined)).toBe(false);
    expect(isCrossSite(h({ host: "127.0.0.1:3000", origin: "https://mem.example" }), "https://mem.example/")).toBe(false);
    expect(isCrossSite(h({ host: "mem.example" }), undefined)).toBe(false);
    expect(isCrossSite(h({ host: "mem.example", "sec-fetch-site": "same-origin" }), undefined)).toBe(false);
  });
  it("another host, a null or broken Origin, or the browser's cross-site flag is another site", () => {
    expect(isCrossSite(h({ host: "mem.example", origin: "https://evil.example" }), undefined)).toBe(true);
    expect(isCrossSite(h({ host: "mem.example", origin: "null" }), undefined)).toBe(true);
    expect(isCrossSite(h({ host: "mem.example", origin: "::" }), undefined)).toBe(true);
    expect(isCrossSite(h({ host: "mem.example", "sec-fetch-site": "cross-site" }), undefined)).toBe(true);
    expect(isCrossSite(h({ host: "mem.example", "sec-fetch-site": "same-site", origin: "https://a.mem.example" }), undefined)).toBe(true);
  });
});
