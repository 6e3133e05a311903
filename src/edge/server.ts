import {
  createServer as createHttpServer,
  STATUS_CODES,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from "node:http";
import type { Duplex } from "node:stream";
import { ApiError, errorBody } from "../model/errors.js";
import { corsResponseHeaders } from "../http/cors.js";
import { headerCount } from "../http/headers.js";
import { appPrototypeOptions, handOff, type App } from "./fast-path.js";

/**
 * The HTTP server around the API. Node answers some requests itself, before any request listener
 * runs: a malformed request line or framing, headers over the size cap, an `Expect` it does not know,
 * a client too slow to send its request, `CONNECT`, HTTP/1.1 without `Host`. Its own answers are empty
 * 400/408/417/431 bodies without CORS headers (or no answer at all), which a browser reports as an
 * opaque network error. Here each becomes §7's envelope with the API's CORS headers, like every other
 * answer (DECISIONS.md: "Answers Node would send itself").
 */

export interface ServerOptions {
  /** Request line and headers together, in bytes (Node's `maxHeaderSize`). */
  maxHeaderBytes?: number;
  /** How long a client has to send the request line and headers. */
  headersTimeoutMs?: number;
  /** How long a client has to send the whole request, body included. */
  requestTimeoutMs?: number;
  /** How often Node looks for requests past the two timeouts above. */
  timeoutCheckIntervalMs?: number;
  /**
   * How long a connection refused by a raw answer stays open, discarding what the client still
   * sends, before it is closed: closing a socket with unread input sends a reset, and a reset can
   * reach the client before it has read the answer.
   */
  lingerMs?: number;
}

export const SERVER_DEFAULTS = {
  /** Node's own default, stated so that `--max-http-header-size` does not change what is promised. */
  maxHeaderBytes: 16 * 1024,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  timeoutCheckIntervalMs: 1_000,
  lingerMs: 2_000,
} as const satisfies Required<ServerOptions>;

/** The parser's error codes (llhttp's `HPE_*` and Node's own), each with a message a client can act on. */
function clientErrorMessage(code: string | undefined, maxHeaderBytes: number): string {
  switch (code) {
    case "HPE_HEADER_OVERFLOW":
      return `The request line and headers exceed ${maxHeaderBytes} bytes (many or large cookies are a common cause)`;
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return "The request was not received in time";
    case "HPE_INVALID_METHOD":
      return "Malformed or unknown method (methods are case-sensitive)";
    case "HPE_INVALID_VERSION":
      return "Unsupported HTTP version: this server speaks HTTP/1.1 and HTTP/1.0";
    case "HPE_PAUSED_H2_UPGRADE":
      return "HTTP/2 is not supported: this server speaks HTTP/1.1 and HTTP/1.0";
    case "HPE_INVALID_URL":
      return "Malformed request target";
    case "HPE_UNEXPECTED_CONTENT_LENGTH":
    case "HPE_INVALID_CONTENT_LENGTH":
    case "HPE_INVALID_TRANSFER_ENCODING":
      return "Ambiguous or invalid message framing: send one Content-Length, or Transfer-Encoding: chunked alone";
    case "HPE_INVALID_CHUNK_SIZE":
    case "HPE_CHUNK_EXTENSIONS_OVERFLOW":
    case "HPE_INVALID_EOF_STATE":
      return "Malformed chunked body";
    case "HPE_INVALID_HEADER_TOKEN":
    case "HPE_LF_EXPECTED":
    case "HPE_CR_EXPECTED":
    case "HPE_INVALID_CONSTANT":
      return "Malformed header (folded lines, bare LF and control characters are refused)";
    default:
      return "Malformed HTTP request";
  }
}

/**
 * Framing Node lets through that the API refuses: a version other than 1.x; RFC 9112 §3.2 requires exactly one `Host` in an
 * HTTP/1.1 request (Node's own check answers a bare 400, so it is turned off and done here), and a
 * transfer coding other than `chunked` would hand the API bytes it cannot read (§6.1).
 */
function framingProblem(req: IncomingMessage): string | undefined {
  // llhttp also accepts HTTP/0.9 (a request line without version or headers) and HTTP/2.0 in an
  // HTTP/1 request line; neither is what it claims to be here.
  if (req.httpVersionMajor !== 1) return "Unsupported HTTP version: this server speaks HTTP/1.1 and HTTP/1.0";
  const hosts = headerCount(req, "host");
  if (hosts > 1) return "Send one Host header";
  if (hosts === 0 && req.httpVersion === "1.1") return "An HTTP/1.1 request must carry a Host header";
  const te = req.headers["transfer-encoding"];
  if (te !== undefined && te.trim().toLowerCase() !== "chunked") {
    return "Transfer-Encoding other than chunked is not supported";
  }
  return undefined;
}

const invalid = (message: string) => new ApiError("invalidRequest", message);

function envelopeHeaders(body: string): Record<string, string> {
  return {
    "Content-Type": "application/json; charset=utf-8",
    "Content-Length": String(Buffer.byteLength(body)),
    ...corsResponseHeaders(),
    // What follows a refused request on this connection cannot be trusted to be framed as sent.
    Connection: "close",
  };
}

const closes = (res: ServerResponse): boolean =>
  String(res.getHeader("connection") ?? "").toLowerCase() === "close";

/** Answers through Node's response object: Node frames it and closes the connection afterwards. */
function answer(res: ServerResponse, error: ApiError): void {
  const body = JSON.stringify(errorBody(error));
  // setHeader rather than writeHead's argument, which Node does not keep for getHeader to read.
  for (const [name, value] of Object.entries(envelopeHeaders(body))) res.setHeader(name, value);
  res.writeHead(error.status);
  res.end(body);
}

/**
 * Builds the HTTP server for `app` (the bin and tests then call `.listen`). Requests the app would
 * never see are answered here in §7's envelope, with CORS headers; everything else is the app's.
 */
export function createServer(app: App, options: ServerOptions = {}): Server {
  const settings = { ...SERVER_DEFAULTS, ...options };
  // The exchange in progress on each connection: a protocol error that arrives while a response is
  // being written must not write a second one into it.
  const current = new WeakMap<Duplex, { req: IncomingMessage; res: ServerResponse }>();
  // Connections already refused: after a parse error every later chunk only repeats it.
  const refused = new WeakSet<Duplex>();

  /** Writes the envelope on a connection Node gives no response object for, then closes it gently. */
  const answerRaw = (socket: Duplex, error: ApiError): void => {
    if (!socket.writable) {
      socket.destroy();
      return;
    }
    // A CONNECT's socket is no longer read by the parser; its later bytes are dropped too.
    socket.resume();
    const body = JSON.stringify(errorBody(error));
    const head = [
      `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status] ?? ""}`,
      `Date: ${new Date().toUTCString()}`,
      ...Object.entries(envelopeHeaders(body)).map(([name, value]) => `${name}: ${value}`),
    ];
    socket.end(`${head.join("\r\n")}\r\n\r\n${body}`);
    // What the client still sends is discarded until it closes or the linger ends.
    const linger = setTimeout(() => socket.destroy(), settings.lingerMs);
    linger.unref();
    socket.once("close", () => clearTimeout(linger));
  };

  const server = createHttpServer(
    {
      maxHeaderSize: settings.maxHeaderBytes,
      headersTimeout: settings.headersTimeoutMs,
      requestTimeout: settings.requestTimeoutMs,
      connectionsCheckingInterval: settings.timeoutCheckIntervalMs,
      requireHostHeader: false,
      insecureHTTPParser: false,
      ...appPrototypeOptions(app),
    },
    (req, res) => {
      current.set(req.socket, { req, res });
      const problem = framingProblem(req);
      if (problem !== undefined) {
        answer(res, invalid(problem));
        return;
      }
      handOff(app, req, res);
    },
  );
  // Node keeps the first 2000 header lines and drops the rest without a word, so a second
  // Authorization could hide past them. The size cap already bounds how many there can be.
  server.maxHeadersCount = 0;

  server.on("clientError", (err: NodeJS.ErrnoException, socket: Duplex) => {
    if (refused.has(socket)) return;
    refused.add(socket);
    const error = invalid(clientErrorMessage(err.code, settings.maxHeaderBytes));
    const exchange = current.get(socket);
    if (exchange === undefined) {
      answerRaw(socket, error);
    } else if (exchange.res.writableEnded) {
      // An answer that closes the connection was the last word on it; otherwise the error is the
      // next request's.
      if (!closes(exchange.res)) answerRaw(socket, error);
    } else if (exchange.res.headersSent) {
      socket.destroy();
    } else if (!exchange.req.complete) {
      // The error is the current request's own (its body is malformed, or its time ran out) and the
      // app still holds it. Written beside Node's response object rather than through it, so that
      // the app, when it gets to answer, writes into a closed connection instead of meeting a
      // response already sent.
      answerRaw(socket, error);
    } else {
      // The error is a pipelined request's, behind one still being answered: that answer goes first.
      const { res } = exchange;
      res.once("finish", () => {
        if (!closes(res)) answerRaw(socket, error);
      });
    }
  });

  // RFC 9110 §10.1.1 lets a server refuse an expectation it does not know; 417 is not one of §7's codes.
  server.on("checkExpectation", (req: IncomingMessage, res: ServerResponse) => {
    const expect = req.headers.expect ?? "";
    answer(res, invalid(`Expect: ${expect.slice(0, 100)} is not supported; only 100-continue is`));
  });

  // Without a listener Node closes a CONNECT without a word. This server is not a proxy.
  server.on("connect", (_req: IncomingMessage, socket: Duplex) => {
    answerRaw(socket, invalid("CONNECT is not supported: this server is not a proxy"));
  });

  return server;
}
