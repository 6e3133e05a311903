import type { Server } from "node:http";
import { Duplex } from "node:stream";
// Imported rather than global: Jest's jsdom environment has no global setImmediate.
import { setImmediate } from "node:timers";
import type { App } from "./fast-path.js";
import { createServer } from "./server.js";

/**
 * The in-process edge: `fetch` answered by the app without a port. Each request travels as HTTP/1.1
 * bytes over an in-memory connection into the same node:http server that `createServer` builds, and a
 * small HTTP/1.1 reader takes the answer back: Node's own client and agent cost more than the server's
 * whole work (with them, 1.58x faster than HTTP keep-alive in the same process; without, 2.47x:
 * DECISIONS.md, "The request path (issue #28)"). So everything between the bytes and the app is what
 * HTTP has: the server's framing refusals, Node's `Date`, `Connection` and `Keep-Alive` headers, a real
 * `req.socket` for a `drop` fault to destroy and a response whose end the journal can tell apart from
 * a closed connection. Why not light-my-request or a fake request: DECISIONS.md, "In-process use".
 */

/** What `reference.fetch` is: `fetch`'s own signature, so that it can stand in for it. */
export type Fetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** What the client's end of a connection is told: bytes the server wrote, the end of them, the connection gone. */
interface ClientEnd {
  data(chunk: Buffer): void;
  end(): void;
  close(): void;
}

/**
 * The server's end of an in-memory connection, the socket Node's HTTP server reads and writes: what
 * the client sends is pushed into it, what the server writes goes straight to the client's end, and
 * destroying it closes the connection for both, as a reset would.
 */
class ServerSocket extends Duplex {
  client: ClientEnd | undefined;
  // A loopback client's address: requests without a known token are rate-limited per client
  // address (spec-gaps #21), and every in-process request comes from this process.
  readonly remoteAddress = "127.0.0.1";
  readonly remoteFamily = "IPv4";
  readonly localAddress = "127.0.0.1";

  override _read(): void {}

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (err?: Error | null) => void): void {
    this.client?.data(chunk);
    done();
  }

  override _final(done: (err?: Error | null) => void): void {
    this.client?.end();
    done();
  }

  override _destroy(err: Error | null, done: (err?: Error | null) => void): void {
    const client = this.client;
    this.client = undefined;
    client?.close();
    done(err);
  }

  // What Node's HTTP server may call on a socket; memory has no timers or options.
  setTimeout(): this {
    return this;
  }
  setNoDelay(): this {
    return this;
  }
  setKeepAlive(): this {
    return this;
  }
  ref(): this {
    return this;
  }
  unref(): this {
    return this;
  }
}

/** The client's end of one in-memory connection to `server`: one exchange at a time, as HTTP/1.1 has it. */
class Connection implements ClientEnd {
  readonly #socket = new ServerSocket();
  /** The exchange in progress, told what the server writes; none while the connection is idle. */
  #exchange: ClientEnd | undefined;
  /** The server ended its output or the connection is gone: it serves no other request. */
  done = false;

  constructor(server: Server) {
    this.#socket.client = this;
    server.emit("connection", this.#socket);
  }

  /** The exchange that is told what comes back, or none. */
  use(exchange: ClientEnd | undefined): void {
    this.#exchange = exchange;
  }

  send(bytes: Buffer): void {
    this.#socket.push(bytes);
  }

  /** Closes the connection under whatever it carries, as a reset would. */
  destroy(): void {
    this.done = true;
    this.#socket.destroy();
  }

  data(chunk: Buffer): void {
    this.#exchange?.data(chunk);
  }

  end(): void {
    this.done = true;
    this.#exchange?.end();
  }

  close(): void {
    this.done = true;
    this.#exchange?.close();
  }
}

/** Framing is the connection's business, not the request's: these are written by the client below. */
const HOP_BY_HOP = new Set(["connection", "keep-alive", "transfer-encoding", "upgrade", "content-length"]);
/** `fetch` sends `Content-Length: 0` for these methods without a body, and nothing for the others. */
const EXPECTS_BODY = new Set(["POST", "PUT", "PATCH"]);
/** Statuses whose response has no body (Fetch: "null body status"). */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

/**
 * The platform's classes as this module found them when it loaded. msw's setupServer later replaces
 * the globals with proxies (and `Headers.prototype.append` with a wrapper) that record raw header
 * names: an answer built through them costs about twice as much (DECISIONS.md, "The msw handlers'
 * speed"). The answer is the same either way.
 */
const { Request: PlatformRequest, Response: PlatformResponse } = globalThis;

/**
 * An answer of the in-process edge: `fetch` gives its answer the URL it asked, without the fragment,
 * where a constructed Response has none.
 */
class InProcessResponse extends PlatformResponse {
  readonly #url: string;

  constructor(body: ConstructorParameters<typeof Response>[0], init: ResponseInit, url: string) {
    super(body, init);
    this.#url = url;
  }

  static {
    // An accessor on the prototype rather than a property defined on each answer.
    Object.defineProperty(this.prototype, "url", {
      get(this: InProcessResponse) {
        return this.#url;
      },
    });
  }
}

/** What a request is sent to, read from its URL (serialized by the Request, so the parts are plain). */
interface Target {
  method: string;
  /** `host[:port]`. */
  host: string;
  /** The path and the query string: the request line's target. */
  path: string;
  /** The URL without its fragment: the answer's `url`. */
  url: string;
}

function targetOf(request: Request): Target {
  const href = request.url;
  const scheme = href.startsWith("http://") ? 7 : href.startsWith("https://") ? 8 : 0;
  if (scheme === 0) {
    throw networkError(new Error(`${href.slice(0, href.indexOf(":") + 1)} is not an HTTP URL`));
  }
  // An HTTP URL, once serialized, always has a path ("/" at least); a "#" can only start the fragment.
  const hash = href.indexOf("#");
  const url = hash === -1 ? href : href.slice(0, hash);
  const slash = url.indexOf("/", scheme);
  return { method: request.method, host: url.slice(scheme, slash), path: url.slice(slash), url };
}

/** A network failure as `fetch` reports it: a TypeError whose cause says what happened. */
const networkError = (cause: unknown): TypeError => new TypeError("fetch failed", { cause });

/**
 * The request's head as the client writes it: request line, header lines (a Host when the request has
 * none), the body's length, and a keep-alive connection as `fetch` keeps its own.
 */
function requestHead(request: Request, target: Target, body: Buffer | null): string {
  let head = `${target.method} ${target.path} HTTP/1.1\r\n`;
  if (!request.headers.has("host")) head += `Host: ${target.host}\r\n`;
  for (const [name, value] of request.headers) {
    if (!HOP_BY_HOP.has(name)) head += `${name}: ${value}\r\n`;
  }
  if (body !== null) head += `Content-Length: ${body.length}\r\n`;
  else if (EXPECTS_BODY.has(request.method)) head += "Content-Length: 0\r\n";
  return `${head}Connection: keep-alive\r\n\r\n`;
}

/** What the server answered, read from the connection: the head, then the body as framed. */
interface Answer {
  status: number;
  statusText: string;
  /** Names and values in the order sent. */
  headers: [string, string][];
  body: Uint8Array;
  /** The whole body arrived (false: the connection went before the length it announced). */
  complete: boolean;
  /** The server keeps the connection open for the next request. */
  keepAlive: boolean;
  /** An answer to HEAD: it has no body, whatever its headers say. */
  bodiless: boolean;
}

const HEAD_END = Buffer.from("\r\n\r\n");

/**
 * Reads one HTTP/1.1 answer from the bytes the server writes, as Node's client would: a status line and
 * header lines, then a body of `Content-Length` bytes, chunked, or up to the connection's end; none
 * for HEAD and the null-body statuses; interim (1xx) answers skipped. The server is this package's own
 * node:http server, so the bytes are well formed; anything else fails the request as a network error.
 */
class AnswerReader {
  #bytes: Buffer = Buffer.alloc(0);
  #head: Head | undefined;
  /** The body's length, "chunked", or "close" (up to the end of the connection). */
  #framing: number | "chunked" | "close" = 0;
  readonly #noBody: boolean;

  constructor(method: string) {
    this.#noBody = method === "HEAD";
  }

  /** Takes bytes; the answer once it is whole. */
  push(chunk: Buffer): Answer | undefined {
    this.#bytes = this.#bytes.length === 0 ? chunk : Buffer.concat([this.#bytes, chunk]);
    return this.#read();
  }

  /** The connection ended: the answer as far as it came (head and part of the body), if the head did. */
  end(): Answer | undefined {
    const head = this.#head;
    if (head === undefined) return undefined;
    if (this.#framing === "close") return answerOf(head, this.#bytes, true, false);
    return answerOf(head, this.#framing === "chunked" ? Buffer.alloc(0) : this.#bytes, false, false);
  }

  #read(): Answer | undefined {
    while (this.#head === undefined) {
      const end = this.#bytes.indexOf(HEAD_END);
      if (end < 0) return undefined;
      const lines = this.#bytes.toString("latin1", 0, end).split("\r\n");
      const status = /^HTTP\/1\.[01] (\d{3})(?: (.*))?$/.exec(lines[0] ?? "");
      if (status === null) throw new Error(`not an HTTP/1.1 status line: ${lines[0] ?? ""}`);
      this.#bytes = this.#bytes.subarray(end + HEAD_END.length);
      const code = Number(status[1]);
      // An interim answer (100 Continue) comes before the answer.
      if (code >= 100 && code < 200 && code !== 101) continue;
      const headers: [string, string][] = [];
      let length: number | undefined;
      let chunked = false;
      let keepAlive = true;
      for (const line of lines.slice(1)) {
        const colon = line.indexOf(":");
        const name = line.slice(0, colon);
        const value = line.slice(colon + 1).trim();
        headers.push([name, value]);
        const lower = name.toLowerCase();
        if (lower === "content-length") length = Number(value);
        else if (lower === "transfer-encoding") chunked = value.toLowerCase() === "chunked";
        else if (lower === "connection") keepAlive = value.toLowerCase() !== "close";
      }
      this.#head = { status: code, statusText: status[2] ?? "", headers, keepAlive, bodiless: this.#noBody };
      this.#framing =
        this.#noBody || NULL_BODY.has(code) ? 0 : chunked ? "chunked" : (length ?? (keepAlive ? 0 : "close"));
    }
    const head = this.#head;
    if (typeof this.#framing === "number") {
      if (this.#bytes.length < this.#framing) return undefined;
      return answerOf(head, this.#bytes.subarray(0, this.#framing), true, head.keepAlive);
    }
    if (this.#framing === "chunked") {
      const body = dechunked(this.#bytes);
      return body === undefined ? undefined : answerOf(head, body, true, head.keepAlive);
    }
    return undefined;
  }
}

type Head = Omit<Answer, "body" | "complete">;

/** The answer of a head and a body. */
const answerOf = (head: Head, body: Uint8Array, complete: boolean, keepAlive: boolean): Answer => ({
  status: head.status,
  statusText: head.statusText,
  headers: head.headers,
  body,
  complete,
  keepAlive,
  bodiless: head.bodiless,
});

/** A chunked body's bytes, once its last chunk (and trailers) arrived. */
function dechunked(bytes: Buffer): Buffer | undefined {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = bytes.indexOf("\r\n", at);
    if (lineEnd < 0) return undefined;
    const size = parseInt(bytes.toString("latin1", at, lineEnd).split(";")[0] ?? "", 16);
    if (Number.isNaN(size)) throw new Error("malformed chunk size");
    at = lineEnd + 2;
    if (size === 0) return bytes.indexOf(HEAD_END, at - 2) < 0 ? undefined : Buffer.concat(parts);
    if (bytes.length < at + size + 2) return undefined;
    parts.push(bytes.subarray(at, at + size));
    at += size + 2;
  }
}

/** The answer as a WHATWG Response: headers in the order sent, the body read whole. */
function toResponse(answer: Answer, url: string): Response {
  // Pairs, not `append`: the Response fills its headers itself, past any wrapper of `append`.
  const { headers, status, body, complete } = answer;
  const empty = NULL_BODY.has(status) || answer.bodiless;
  // A plain Uint8Array, not a Buffer: undici reads it back in half the time.
  const bytes = new Uint8Array(body.buffer, body.byteOffset, body.length);
  // A body cut short reads as `fetch` reads it then: what arrived, then a TypeError.
  const content = empty
    ? null
    : complete
      ? bytes
      : new ReadableStream<Uint8Array>({
          start(controller) {
            if (bytes.length > 0) controller.enqueue(bytes);
            controller.error(new TypeError("terminated"));
          },
        });
  return new InProcessResponse(content, { status, statusText: answer.statusText, headers }, url);
}

/**
 * `fetch` over in-memory connections to `app`, served as `createServer(app)` serves it. Redirects are
 * answered, not followed (the server's answer, as `redirect: "manual"` gives it in Node); the request's
 * signal aborts the exchange as it aborts `fetch`, closing the connection under the request. A
 * connection the server keeps open serves the next request, as fetch keeps its own.
 */
export function fetchEdge(app: App): Fetch {
  let server: Server | undefined;
  const idle: Connection[] = [];
  return async (input, init) => {
    const request =
      input instanceof PlatformRequest && init === undefined ? input : new PlatformRequest(input, init);
    const target = targetOf(request);
    const { signal } = request;
    signal.throwIfAborted();
    const body = request.body === null ? null : Buffer.from(await request.arrayBuffer());
    signal.throwIfAborted();
    let connection = idle.pop();
    while (connection?.done === true) connection = idle.pop();
    const via = connection ?? new Connection((server ??= createServer(app)));
    return new Promise<Response>((resolve, reject) => {
      const reader = new AnswerReader(request.method);
      let settled = false;
      const settle = (): boolean => {
        if (settled) return false;
        settled = true;
        via.use(undefined);
        signal.removeEventListener("abort", onAbort);
        return true;
      };
      // The connection went: what arrived is the answer, cut short, or there is none.
      const gone = () => {
        const answer = reader.end();
        if (!settle()) return;
        via.destroy();
        if (answer === undefined) reject(networkError(new Error("the connection closed before an answer")));
        else resolve(toResponse(answer, target.url));
      };
      via.use({
        data(chunk) {
          let answer: Answer | undefined;
          try {
            answer = reader.push(chunk);
          } catch (err) {
            if (settle()) reject(networkError(err));
            via.destroy();
            return;
          }
          if (answer === undefined || !settle()) return;
          const whole = answer;
          // Resolved once the server is done with the exchange (its response closed, the journal
          // written), as over HTTP, where the answer crosses a network first.
          setImmediate(() => {
            if (whole.keepAlive && !via.done) idle.push(via);
            else via.destroy();
            resolve(toResponse(whole, target.url));
          });
        },
        end: gone,
        close: gone,
      });
      const onAbort = () => {
        if (settle()) reject(signal.reason);
        via.destroy();
      };
      signal.addEventListener("abort", onAbort, { once: true });
      via.send(Buffer.from(requestHead(request, target, body), "latin1"));
      if (body !== null && body.length > 0) via.send(body);
    });
  };
}
