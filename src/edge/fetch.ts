import { Agent, request as httpRequest, type IncomingMessage, type Server } from "node:http";
import { Duplex } from "node:stream";
import type { App } from "./fast-path.js";
import { createServer } from "./server.js";

/**
 * The in-process edge: `fetch` answered by the app without a port. Each request travels as HTTP/1.1
 * bytes over an in-memory connection into the same node:http server that `createServer` builds, and
 * Node's own HTTP client reads the answer back. So everything between the bytes and the app is what
 * HTTP has: the server's framing refusals, Node's `Date`, `Connection` and `Keep-Alive` headers, a real
 * `req.socket` for a `drop` fault to destroy and a response whose end the journal can tell apart from
 * a closed connection. Why not light-my-request or a fake request: DECISIONS.md, "In-process use".
 */

/** What `reference.fetch` is: `fetch`'s own signature, so that it can stand in for it. */
export type Fetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/**
 * One end of an in-memory connection: what is written to one end is read from the other, ending
 * one ends the other's input, and destroying one destroys the other, as a reset would.
 */
class MemorySocket extends Duplex {
  peer: MemorySocket | undefined;
  // A loopback client's address: requests without a known token are rate-limited per client
  // address (spec-gaps #21), and every in-process request comes from this process.
  readonly remoteAddress = "127.0.0.1";
  readonly remoteFamily = "IPv4";
  readonly localAddress = "127.0.0.1";

  override _read(): void {}

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (err?: Error | null) => void): void {
    this.peer?.push(chunk);
    done();
  }

  override _final(done: (err?: Error | null) => void): void {
    this.peer?.push(null);
    done();
  }

  override _destroy(err: Error | null, done: (err?: Error | null) => void): void {
    const peer = this.peer;
    this.peer = undefined;
    if (peer !== undefined && !peer.destroyed) peer.destroy();
    done(err);
  }

  // What Node's HTTP server and client may call on a socket; memory has no timers or options.
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

/** A keep-alive agent whose connections are in memory, each opened on `server` as a new client's. */
class MemoryAgent extends Agent {
  readonly #server: Server;

  constructor(server: Server) {
    // Kept alive as `fetch` keeps its connections: the server then answers `Connection: keep-alive`.
    super({ keepAlive: true });
    this.#server = server;
  }

  override createConnection(): Duplex {
    const client = new MemorySocket();
    const server = new MemorySocket();
    client.peer = server;
    server.peer = client;
    this.#server.emit("connection", server);
    return client;
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

/** A network failure as `fetch` reports it: a TypeError whose cause says what happened. */
const networkError = (cause: unknown): TypeError => new TypeError("fetch failed", { cause });

/** The request line's target and the header lines, as `fetch` would write them for `request`. */
function headerLines(request: Request, host: string, body: Buffer | null): string[] {
  const lines: string[] = [];
  if (!request.headers.has("host")) lines.push("host", host);
  for (const [name, value] of request.headers) {
    if (!HOP_BY_HOP.has(name)) lines.push(name, value);
  }
  if (body !== null) lines.push("content-length", String(body.length));
  else if (EXPECTS_BODY.has(request.method)) lines.push("content-length", "0");
  return lines;
}

/** Node's response as a WHATWG one: headers in the order sent, the body read whole. */
function toResponse(res: IncomingMessage, target: Target, body: Buffer, complete: boolean): Response {
  // Pairs, not `append`: the Response fills its headers itself, past any wrapper of `append`.
  const headers: [string, string][] = [];
  const raw = res.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) headers.push([raw[i] as string, raw[i + 1] as string]);
  const status = res.statusCode ?? 0;
  const empty = NULL_BODY.has(status) || target.method === "HEAD";
  // A body cut short reads as `fetch` reads it then: what arrived, then a TypeError.
  const content = empty
    ? null
    : complete
      ? body
      : new ReadableStream<Uint8Array>({
          start(controller) {
            if (body.length > 0) controller.enqueue(new Uint8Array(body));
            controller.error(new TypeError("terminated"));
          },
        });
  return new InProcessResponse(content, { status, statusText: res.statusMessage ?? "", headers }, target.url);
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

/**
 * `fetch` over in-memory connections to `app`, served as `createServer(app)` serves it. Redirects are
 * answered, not followed (the server's answer, as `redirect: "manual"` gives it in Node); the request's
 * signal aborts the exchange as it aborts `fetch`, closing the connection under the request.
 */
export function fetchEdge(app: App): Fetch {
  let agent: MemoryAgent | undefined;
  return async (input, init) => {
    const request =
      input instanceof PlatformRequest && init === undefined ? input : new PlatformRequest(input, init);
    const target = targetOf(request);
    const { signal } = request;
    signal.throwIfAborted();
    const body = request.body === null ? null : Buffer.from(await request.arrayBuffer());
    signal.throwIfAborted();
    agent ??= new MemoryAgent(createServer(app));
    const via = agent;
    return new Promise<Response>((resolve, reject) => {
      const req = httpRequest({
        agent: via,
        method: target.method,
        path: target.path,
        headers: headerLines(request, target.host, body),
        setHost: false,
      });
      const onAbort = () => {
        req.destroy();
        reject(signal.reason);
      };
      signal.addEventListener("abort", onAbort, { once: true });
      const settle = () => signal.removeEventListener("abort", onAbort);
      req.once("error", (err) => {
        settle();
        reject(networkError(err));
      });
      req.once("response", (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        // "close" follows "end" when the body came whole, and comes alone when the connection went first.
        res.once("close", () => {
          settle();
          if (signal.aborted) return;
          const whole = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
          resolve(toResponse(res, target, whole, res.complete));
        });
        res.once("error", () => {});
      });
      req.end(body ?? undefined);
    });
  };
}
