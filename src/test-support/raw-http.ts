import { connect } from "node:net";
import { expect } from "vitest";
import { ErrorEnvelope } from "./reference.js";

/**
 * Raw HTTP over a loopback socket: the bytes a hostile or clumsy client writes, which no HTTP client
 * library will send (malformed request lines, duplicate headers, bodies that stop halfway), and the
 * answer read back as bytes, whatever Node or the app made of them.
 */

export interface RawResponse {
  status: number;
  /** Lower-cased names; a name sent twice has two values. */
  headers: Map<string, string[]>;
  body: string;
}

export interface Exchange {
  responses: RawResponse[];
  /** Everything received, for failure messages. */
  raw: string;
  /** Whether the server closed the connection (rather than the wait running out). */
  closedByServer: boolean;
}

/**
 * Splits what was received into complete responses (framed by Content-Length or chunked); an answer
 * framed by the end of the connection counts only once the connection has closed.
 */
export function parseResponses(raw: Buffer, closed: boolean, bodiless = false): RawResponse[] {
  const responses: RawResponse[] = [];
  let at = 0;
  while (at < raw.length) {
    const headEnd = raw.indexOf("\r\n\r\n", at);
    if (headEnd < 0) break;
    const [statusLine = "", ...lines] = raw.subarray(at, headEnd).toString("latin1").split("\r\n");
    const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? NaN);
    const headers = new Map<string, string[]>();
    for (const line of lines) {
      const colon = line.indexOf(":");
      const name = line.slice(0, colon).trim().toLowerCase();
      headers.set(name, [...(headers.get(name) ?? []), line.slice(colon + 1).trim()]);
    }
    let bodyStart = headEnd + 4;
    const length = headers.get("content-length")?.[0];
    const chunked = headers.get("transfer-encoding")?.[0]?.toLowerCase() === "chunked";
    let body: Buffer;
    if (bodiless && status >= 200) {
      body = Buffer.alloc(0);
      at = bodyStart;
    } else if (length !== undefined) {
      if (raw.length < bodyStart + Number(length)) break;
      body = raw.subarray(bodyStart, bodyStart + Number(length));
      at = bodyStart + Number(length);
    } else if (chunked) {
      const parts: Buffer[] = [];
      let complete = false;
      for (;;) {
        const sizeEnd = raw.indexOf("\r\n", bodyStart);
        if (sizeEnd < 0) break;
        const size = parseInt(raw.subarray(bodyStart, sizeEnd).toString("latin1"), 16);
        if (Number.isNaN(size) || raw.length < sizeEnd + 2 + size + 2) break;
        if (size === 0) {
          at = sizeEnd + 4;
          complete = true;
          break;
        }
        parts.push(raw.subarray(sizeEnd + 2, sizeEnd + 2 + size));
        bodyStart = sizeEnd + 2 + size + 2;
      }
      if (!complete) break;
      body = Buffer.concat(parts);
    } else if (status === 204 || status === 304 || (status >= 100 && status < 200)) {
      body = Buffer.alloc(0);
      at = bodyStart;
    } else {
      if (!closed) break;
      body = raw.subarray(bodyStart);
      at = raw.length;
    }
    responses.push({ status, headers, body: body.toString("utf8") });
  }
  return responses;
}

export interface ExchangeOptions {
  /** How many complete responses to wait for (default 1). */
  responses?: number;
  /** Half-close after writing, as a client that has nothing more to send. */
  end?: boolean;
  /** The answers carry no body whatever their headers say (answers to HEAD). */
  bodiless?: boolean;
  /**
   * The most the wait lasts. Not a speed requirement: an answer that should come at once either
   * comes or never does, and this only makes "never" fail instead of hanging the run.
   */
  giveUpAfterMs?: number;
}

/**
 * Writes `parts` on a fresh connection, in order, and collects the answer until the responses asked
 * for are complete, the server closes, or the wait gives up. Writes the server refuses (it has closed)
 * are not an error: what it answered before is the result.
 */
export function exchange(
  port: number,
  parts: string | Buffer | readonly (string | Buffer)[],
  options: ExchangeOptions = {},
): Promise<Exchange> {
  const wanted = options.responses ?? 1;
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    const received: Buffer[] = [];
    let closed = false;
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      const raw = Buffer.concat(received);
      socket.destroy();
      resolve({
        responses: parseResponses(raw, closed, options.bodiless),
        raw: raw.toString("latin1"),
        closedByServer: closed,
      });
    };
    const timer = setTimeout(finish, options.giveUpAfterMs ?? 5_000);
    socket.on("data", (chunk: Buffer) => {
      received.push(chunk);
      if (parseResponses(Buffer.concat(received), false, options.bodiless).length >= wanted) finish();
    });
    socket.on("error", () => {
      closed = true;
      finish();
    });
    socket.on("end", () => {
      closed = true;
      finish();
    });
    socket.on("connect", () => {
      for (const part of typeof parts === "string" || Buffer.isBuffer(parts) ? [parts] : parts) {
        if (socket.destroyed) break;
        socket.write(part);
      }
      if (options.end === true) socket.end();
    });
  });
}

/** The one response of an exchange, or a failure that shows what was received. */
export function only(result: Exchange): RawResponse {
  expect(
    result.responses,
    `expected one response, received ${JSON.stringify(result.raw.slice(0, 500))}`,
  ).toHaveLength(1);
  return result.responses[0] as RawResponse;
}

/** Asserts an answer in §7's envelope with `code`, its status, JSON and the API's CORS headers. */
export function expectEnvelope(res: RawResponse, status: number, code: string): ErrorEnvelope["error"] {
  expect(res.status, `status of ${res.status} ${res.body.slice(0, 300)}`).toBe(status);
  expect(res.headers.get("content-type")?.[0]).toMatch(/^application\/json(;|$)/);
  expect(res.headers.get("access-control-allow-origin")).toEqual(["*"]);
  expect(res.headers.get("access-control-expose-headers")?.[0]).toBeDefined();
  const parsed = ErrorEnvelope.safeParse(JSON.parse(res.body));
  if (!parsed.success) throw new Error(`not the §7 envelope: ${res.body.slice(0, 300)}`);
  expect(parsed.data.error.code).toBe(code);
  return parsed.data.error;
}

/** A request as bytes: the request line, then each header line, then the body. */
export function rawRequest(requestLine: string, headers: readonly string[], body = ""): string {
  return `${requestLine}\r\n${headers.map((h) => `${h}\r\n`).join("")}\r\n${body}`;
}
