import http from "node:http";
import type { Socket } from "node:net";

/*
 * Node refuses a request it cannot parse (a URL or headers past its 16 KiB limit: 431; a
 * malformed request line: 400) before Next sees it, by writing the answer and destroying the
 * socket at once. When the client is still sending (a 1 MB query string), destroying a socket
 * with unread data makes the kernel reset the connection, and the reset can arrive before the
 * answer: the client sees ECONNRESET instead of a 431 (15 of 200 tries on the built app). So the
 * app answers those refusals itself and closes the way web servers do ("lingering close"): it
 * sends the answer with `Connection: close`, ends its side, and goes on reading (and dropping)
 * what the client still sends until the client closes, or LINGER_MS have passed.
 */

const LINGER_MS = 5_000;
const INSTALLED = Symbol.for("gligabao.lingeringRefusals");
const refused = new WeakSet<Socket>();

const REASONS: Record<number, string> = {
  400: "Bad Request",
  408: "Request Timeout",
  413: "Payload Too Large",
  431: "Request Header Fields Too Large",
};

/** The status Node would have answered for a parser error, and the message the body carries. */
export function refusalFor(code: string | undefined): { status: number; message: string } {
  switch (code) {
    case "HPE_HEADER_OVERFLOW":
      return { status: 431, message: `the request line and headers may hold at most ${http.maxHeaderSize} bytes; send large inputs in a POST body` };
    case "HPE_CHUNK_EXTENSIONS_OVERFLOW":
      return { status: 413, message: "chunk extensions too large" };
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return { status: 408, message: "the request took too long to arrive" };
    default:
      return { status: 400, message: "the request is not valid HTTP" };
  }
}

function refuse(error: NodeJS.ErrnoException, socket: Socket): void {
  if (refused.has(socket)) return; // the parser reports every later chunk again
  refused.add(socket);
  // an answer already on its way cannot be followed by another: close, as Node would
  const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (!socket.writable || inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  const { status, message } = refusalFor(error.code);
  // the path is not known yet: the REST API's error shape, which says it plainly to any client
  const body = JSON.stringify({ code: status === 431 ? "REQUEST_HEADER_FIELDS_TOO_LARGE" : status === 413 ? "PAYLOAD_TOO_LARGE" : status === 408 ? "TIMEOUT" : "BAD_REQUEST", message });
  socket.on("error", () => socket.destroy());
  socket.end(
    `HTTP/1.1 ${status} ${REASONS[status]}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
  socket.on("data", () => undefined);
  socket.resume();
  const timer = setTimeout(() => socket.destroy(), LINGER_MS);
  timer.unref();
  socket.once("close", () => clearTimeout(timer));
}

/**
 * Answer parse refusals of every http.Server of this process with a lingering close, unless the
 * server has its own `clientError` listener. Called once at start-up (instrumentation.ts).
 */
export function installLingeringRefusals(): void {
  const proto = http.Server.prototype as http.Server & { [INSTALLED]?: true };
  if (proto[INSTALLED]) return;
  proto[INSTALLED] = true;
  const emit = proto.emit;
  proto.emit = function (this: http.Server, event: string | symbol, ...args: unknown[]) {
    if (event === "clientError" && this.listenerCount("clientError") === 0) {
      refuse(args[0] as NodeJS.ErrnoException, args[1] as Socket);
      return true;
    }
    return Reflect.apply(emit, this, [event, ...args]) as boolean;
  } as typeof proto.emit;
}
