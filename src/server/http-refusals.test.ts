import http from "node:http";
import net, { type AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { installLingeringRefusals, refusalFor } from "./http-refusals";

/*
 * A URL past Node's 16 KiB header limit, sent to a server whose event loop is busy (as the app's
 * is while it works): Node's own refusal destroys the socket while the client is still sending,
 * and the client often sees a reset instead of the 431. With the lingering refusal every try
 * gets the 431 and its JSON body.
 */

let server: http.Server;
let base: string;
let busy: NodeJS.Timeout;

beforeAll(async () => {
  installLingeringRefusals();
  server = http.createServer((_req, res) => setTimeout(() => res.end("ok"), 2));
  busy = setInterval(() => {
    const until = Date.now() + 20;
    while (Date.now() < until);
  }, 25);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  clearInterval(busy);
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe("requests Node cannot parse", () => {
  it("a URL past the header limit gets a 431 with a JSON reason, never a reset", async () => {
    const huge = encodeURIComponent(JSON.stringify({ json: { cursor: "é".repeat(300_000) } }));
    const outcomes: Record<string, number> = {};
    for (let i = 0; i < 60; i++) {
      await (await fetch(`${base}/small`)).text(); // a kept-alive socket, as clients reuse them
      let outcome: string;
      try {
        const res = await fetch(`${base}/api/trpc/audit.list?input=${huge}`);
        const body = (await res.json()) as { code: string; message: string };
        outcome = `${res.status} ${res.headers.get("connection")} ${body.code === "REQUEST_HEADER_FIELDS_TOO_LARGE" && body.message.includes("at most") ? "reason" : "no reason"}`;
      } catch (error) {
        outcome = String((error as { cause?: { code?: string } }).cause?.code ?? error);
      }
      outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
    }
    expect(outcomes).toEqual({ "431 close reason": 60 });
  });

  it("a request line that is not HTTP gets a 400 and the connection closes", async () => {
    const { port } = server.address() as AddressInfo;
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(port, "127.0.0.1", () => socket.write("NOT HTTP AT ALL\r\n\r\n"));
      let text = "";
      socket.on("data", (d: Buffer) => (text += d.toString()));
      socket.on("close", () => resolve(text));
      socket.on("error", reject);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(answer).toContain("Connection: close");
    expect(answer).toContain('"the request is not valid HTTP"');
  });

  it("maps parser errors to the statuses Node would answer", () => {
    expect(refusalFor("HPE_HEADER_OVERFLOW").status).toBe(431);
    expect(refusalFor("ERR_HTTP_REQUEST_TIMEOUT").status).toBe(408);
    expect(refusalFor("HPE_INVALID_METHOD").status).toBe(400);
  });
});
