import { IncomingMessage, ServerResponse, type Server } from "node:http";
import express from "express";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CORS_EXPOSED_HEADERS } from "../http/cors.js";
import type { App } from "./fast-path.js";
import { createServer, SERVER_DEFAULTS, type ServerOptions } from "./server.js";
import { exchange, expectEnvelope, only, rawRequest, type RawResponse } from "../test-support/raw-http.js";
import { close, listen } from "../test-support/serve.js";
import { testReference, type TestReference } from "../test-support/reference.js";

// What Node answers by itself, before the app sees a request, over a real socket (issue 7, point 1).

let ref: TestReference;
let server: Server | undefined;
let port: number;

async function start(options: ServerOptions = {}) {
  ref = await testReference();
  server = createServer(ref.app, options);
  port = await listen(server);
}

beforeEach(async () => {
  await start();
});

afterEach(async () => {
  const s = server;
  server = undefined;
  if (s !== undefined) await close(s);
});

const CONTACTS = "/api/v1/contacts";
const HOST = "Host: 127.0.0.1";
const get = (headers: readonly string[] = [], target = CONTACTS) =>
  rawRequest(`GET ${target} HTTP/1.1`, [HOST, ...headers]);
const bearer = () => `Authorization: Bearer ${ref.token("lumiere-full")}`;

async function expectRefused(bytes: string | readonly string[], message?: RegExp) {
  const res = only(await exchange(port, bytes));
  const error = expectEnvelope(res, 400, "invalid_request");
  if (message !== undefined) expect(error.message).toMatch(message);
  expect(res.headers.get("connection")).toEqual(["close"]);
  return res;
}

describe("requests Node refuses before the app sees them (§7 envelope, CORS)", () => {
  it.each([
    ["a lower-case method", rawRequest(`get ${CONTACTS} HTTP/1.1`, [HOST]), /method/],
    ["an unknown method", rawRequest(`FOO ${CONTACTS} HTTP/1.1`, [HOST]), /method/],
    ["TLS bytes sent to the plain port", "\x16\x03\x01\x00\xa5\x01\x00\x00\xa1\x03\x03", /method/],
    ["HTTP/3.0", rawRequest(`GET ${CONTACTS} HTTP/3.0`, [HOST]), /version/],
    ["an HTTP/2 preface", "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", /HTTP\/2/],
    ["HTTP/2.0 in an HTTP/1 request line", rawRequest(`GET ${CONTACTS} HTTP/2.0`, [HOST]), /version/],
    ["a request line without version (HTTP/0.9)", `GET ${CONTACTS}\r\n\r\n`, /version/],
    ["a NUL in the path", rawRequest(`GET /api/v1/con\0tacts HTTP/1.1`, [HOST]), /target/],
    ["a folded header", get(["X-Note: first", " folded"]), /header/],
    ["a space in a header name", get(["X Note: a"]), /header/],
    ["a bare LF line end", `GET ${CONTACTS} HTTP/1.1\n${HOST}\n\n`, /./],
    [
      "Content-Length with Transfer-Encoding",
      rawRequest(
        `POST ${CONTACTS} HTTP/1.1`,
        [HOST, "Content-Length: 5", "Transfer-Encoding: chunked"],
        "0\r\n\r\n",
      ),
      /framing/,
    ],
    [
      "two different Content-Lengths",
      rawRequest(`POST ${CONTACTS} HTTP/1.1`, [HOST, "Content-Length: 2", "Content-Length: 3"], "{}x"),
      /framing/,
    ],
    [
      "two equal Content-Lengths",
      rawRequest(`POST ${CONTACTS} HTTP/1.1`, [HOST, "Content-Length: 2", "Content-Length: 2"], "{}"),
      /framing/,
    ],
    [
      "a chunk size that is not hexadecimal",
      rawRequest(`POST ${CONTACTS} HTTP/1.1`, [HOST, "Transfer-Encoding: chunked"], "zz\r\n"),
      /chunked/,
    ],
    [
      "chunk extensions over the cap",
      rawRequest(
        `POST ${CONTACTS} HTTP/1.1`,
        [HOST, "Transfer-Encoding: chunked"],
        `1;${"e".repeat(20_000)}\r\n`,
      ),
      /chunked/,
    ],
  ])("answers %s with 400 invalid_request", async (_why, bytes, message) => {
    await expectRefused(bytes, message);
  });

  it.each([
    ["a 1 MB token", [get([`Authorization: Bearer acct_${"A".repeat(1_000_000)}`])]],
    // Cookies ignore ports: a browser sends every localhost cookie of every other dev server too.
    [
      "the many cookies a browser sends to localhost",
      [get(Array.from({ length: 40 }, (_, i) => `Cookie: c${i}=${"v".repeat(500)}`))],
    ],
    ["a request line over the cap", [get([], `${CONTACTS}?q=${"q".repeat(20_000)}`)]],
  ])("answers headers over %s with 400 invalid_request naming the cap", async (_why, bytes) => {
    await expectRefused(bytes, new RegExp(`${SERVER_DEFAULTS.maxHeaderBytes} bytes`));
  });

  it("serves a request whose headers stay under the cap", async () => {
    const res = only(await exchange(port, get([bearer(), `Cookie: c=${"v".repeat(15_000)}`])));
    expect(res.status).toBe(200);
  });

  it("answers an HTTP/1.1 request without Host with 400 invalid_request", async () => {
    await expectRefused(rawRequest(`GET ${CONTACTS} HTTP/1.1`, [bearer()]), /Host/);
  });

  it("answers a request with two Host headers with 400 invalid_request", async () => {
    await expectRefused(get([bearer(), "Host: example.com"]), /Host/);
  });

  it("serves an HTTP/1.0 request without Host", async () => {
    const res = only(await exchange(port, rawRequest(`GET ${CONTACTS}?limit=1 HTTP/1.0`, [bearer()])));
    expect(res.status).toBe(200);
  });

  it.each(["gzip, chunked", "chunked, chunked"])(
    "answers Transfer-Encoding: %s with 400 invalid_request",
    async (te) => {
      await expectRefused(
        rawRequest(`POST ${CONTACTS} HTTP/1.1`, [HOST, bearer(), `Transfer-Encoding: ${te}`], "0\r\n\r\n"),
        /Transfer-Encoding/,
      );
    },
  );

  it("answers Expect: foo with 400 invalid_request instead of 417", async () => {
    await expectRefused(get([bearer(), "Expect: foo"]), /Expect/);
  });

  it("still honours Expect: 100-continue", async () => {
    const result = await exchange(
      port,
      rawRequest(
        `POST ${CONTACTS} HTTP/1.1`,
        [HOST, bearer(), "Content-Type: application/json", "Content-Length: 31", "Expect: 100-continue"],
        '{"type":"CLIENT","name":"Cont"}',
      ),
      { responses: 2 },
    );
    expect(result.responses.map((r) => r.status)).toEqual([100, 201]);
  });

  it("answers CONNECT with 400 invalid_request instead of closing without a word", async () => {
    await expectRefused(rawRequest("CONNECT example.com:443 HTTP/1.1", ["Host: example.com:443"]), /proxy/);
  });

  it("carries the same CORS headers as the app's own answers", async () => {
    const refused = await expectRefused(rawRequest(`FOO ${CONTACTS} HTTP/1.1`, [HOST]));
    const app = only(await exchange(port, get()));
    expect(app.status).toBe(401);
    for (const name of ["access-control-allow-origin", "access-control-expose-headers"]) {
      expect(refused.headers.get(name)).toEqual(app.headers.get(name));
    }
    expect(refused.headers.get("access-control-expose-headers")?.[0]?.split(",")).toEqual([
      ...CORS_EXPOSED_HEADERS,
    ]);
  });

  it("answers the good request before a malformed one on the same connection, then refuses the second", async () => {
    const result = await exchange(port, [get([bearer()]), rawRequest(`get ${CONTACTS} HTTP/1.1`, [HOST])], {
      responses: 2,
    });
    expect(result.responses.map((r) => r.status)).toEqual([200, 400]);
    expectEnvelope(result.responses[1] as RawResponse, 400, "invalid_request");
  });

  it("keeps serving after each kind of refusal", async () => {
    await expectRefused(rawRequest(`FOO ${CONTACTS} HTTP/1.1`, [HOST]));
    await expectRefused(get([`X-Big: ${"b".repeat(20_000)}`]));
    const res = only(await exchange(port, get([bearer()])));
    expect(res.status).toBe(200);
  });
});

describe("slow clients", () => {
  // Short timeouts, checked often, so that the test waits a fraction of a second for what a real
  // client would meet after SERVER_DEFAULTS; nothing here measures how long anything took.
  const quick = { headersTimeoutMs: 200, requestTimeoutMs: 400, timeoutCheckIntervalMs: 50 };

  beforeEach(async () => {
    if (server !== undefined) await close(server);
    await start(quick);
  });

  it("answers headers that never end with 400 invalid_request instead of a bare 408", async () => {
    await expectRefused([`GET ${CONTACTS} HTTP/1.1\r\n${HOST}\r\nX-Slow: 1\r\n`], /in time/);
  });

  it("answers a body that never ends with 400 invalid_request", async () => {
    await expectRefused(
      [
        rawRequest(
          `POST ${CONTACTS} HTTP/1.1`,
          [HOST, bearer(), "Content-Type: application/json", "Content-Length: 100"],
          '{"type":',
        ),
      ],
      /in time/,
    );
  });

  it("counts nothing for a request refused before it was read", async () => {
    const id = ref.tokenId("lumiere-full");
    const before = ref.tokens.get(id)?.requestCount;
    await expectRefused([`GET ${CONTACTS} HTTP/1.1\r\n${HOST}\r\n${bearer()}\r\n`]);
    expect(ref.tokens.get(id)?.requestCount).toBe(before);
  });
});

describe("header count", () => {
  it("reads every header line, not only Node's default first 2000", async () => {
    const filler = Array.from({ length: 2100 }, () => "a: 1");
    const res = only(await exchange(port, get([bearer(), ...filler, "Authorization: Bearer other"])));
    expectEnvelope(res, 401, "unauthorized");
  });
});

describe("the request and response objects", () => {
  const serve = async (app: App) => {
    const own = createServer(app);
    const at = await listen(own);
    try {
      return await (await fetch(`http://127.0.0.1:${at}/x`)).text();
    } finally {
      await close(own);
    }
  };

  it("are born on an Express app's own prototypes, so Express's per-request swap changes nothing", async () => {
    const app = express().get("/x", (_req, res) => void res.send("ok"));
    let born: unknown[] = [];
    const watched = Object.assign(
      (req: IncomingMessage, res: ServerResponse) => {
        born = [Object.getPrototypeOf(req), Object.getPrototypeOf(res)];
        app(req, res);
      },
      { request: app.request, response: app.response },
    );
    expect(await serve(watched)).toBe("ok");
    expect(born).toEqual([app.request, app.response]);
  });

  it("are Node's own for a plain listener", async () => {
    let born: unknown[] = [];
    const plain = (req: IncomingMessage, res: ServerResponse) => {
      born = [Object.getPrototypeOf(req), Object.getPrototypeOf(res)];
      res.end("ok");
    };
    expect(await serve(plain)).toBe("ok");
    expect(born).toEqual([IncomingMessage.prototype, ServerResponse.prototype]);
  });
});
