import { createServer as createHttpServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { brotliCompressSync, deflateSync, gzipSync } from "node:zlib";
import request from "supertest";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DEFAULT_BODY_LIMIT_BYTES } from "../../entry/reference.js";
import { MAX_JSON_DEPTH } from "../../validation/json.js";
import { createServer } from "../../edge/server.js";
import { close, exchange, expectEnvelope, listen, only, rawRequest } from "../../test-support/raw-http.js";
import {
  expectData,
  expectError,
  expectInvalid,
  referencePerTest,
  type TestReference,
} from "../../test-support/reference.js";

const CONTACTS = "/api/v1/contacts";
const PRODUCTS = "/api/v1/products";
const VALID = '{"type":"CLIENT","name":"Body test"}';

let ref: TestReference;
let contactsBefore: number;
let productsBefore: number;

const countProducts = () => ref.store.listProducts("org_lumiere", { limit: 100_000 }).length;

const fresh = referencePerTest();
beforeEach(() => {
  ref = fresh.ref;
  contactsBefore = ref.store.countContacts("org_lumiere");
  productsBefore = countProducts();
});

/** Leaves the bytes alone: superagent would otherwise serialize a Buffer sent as JSON into `{"type":"Buffer"…}`. */
const asIs = (bytes: unknown) => bytes as string;

/** POSTs exactly these bytes with exactly the headers given (none added for a Buffer). */
function post(body: string | Buffer, headers: Record<string, string> = {}, path = CONTACTS) {
  return request(ref.app)
    .post(path)
    .set(ref.auth("lumiere-full"))
    .set(headers)
    .serialize(asIs)
    .send(typeof body === "string" ? Buffer.from(body, "utf8") : body);
}

const json = { "Content-Type": "application/json" };

/** Asserts a 400 invalid_request and that nothing was stored. */
async function expectRefused(res: request.Response) {
  expectError(res, 400, "invalid_request");
  expect(ref.store.countContacts("org_lumiere")).toBe(contactsBefore);
  expect(countProducts()).toBe(productsBefore);
  // Through the API too: the list a client reads is unchanged.
  const list = await request(ref.app).get(`${CONTACTS}?limit=200`).set(ref.auth("lumiere-full"));
  expect(expectData(list, 200)).toHaveLength(contactsBefore);
}

describe("malformed JSON (spec-gaps #14)", () => {
  it.each([
    ["an unclosed object", "{"],
    ["a trailing comma", '{"type":"CLIENT","name":"x",}'],
    ["single quotes", "{'type':'CLIENT','name':'x'}"],
    ["a missing comma", '{"type":"CLIENT" "name":"x"}'],
    ["an unquoted key", '{type:"CLIENT","name":"x"}'],
    ["trailing garbage", `${VALID}x`],
    ["two objects", `${VALID}${VALID}`],
    ["a comment", `/* c */${VALID}`],
    ["NaN", '{"type":"CLIENT","name":"x","phone":NaN}'],
    ["a leading-zero number", '{"sku":"a","name":"x","unitPrice":01}'],
    ["a raw control character in a string", '{"type":"CLIENT","name":"a\tb"}'],
    ["an invalid escape", '{"type":"CLIENT","name":"a\\qb"}'],
  ])("refuses %s with 400", async (_why, body) => {
    await expectRefused(await post(body, json));
  });
});

describe("deep nesting (issue 7, point 6)", () => {
  const nested = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`;
  const inPhone = (depth: number) => `{"type":"CLIENT","name":"x","phone":${nested(depth)}}`;

  it.each([
    ["one level over the limit", inPhone(MAX_JSON_DEPTH)],
    ["10 000 levels", inPhone(10_000)],
    ["50 000 levels, never closed", `{"type":"CLIENT","name":"x","phone":${"[".repeat(50_000)}`],
    ["10 000 levels of objects", `${'{"a":'.repeat(10_000)}1${"}".repeat(10_000)}`],
  ])("refuses %s with a message of our own, naming the limit", async (_why, body) => {
    const res = await post(body, json);
    await expectRefused(res);
    const { message } = (res.body as { error: { message: string } }).error;
    expect(message).toContain(`nested deeper than ${MAX_JSON_DEPTH} levels`);
    expect(message).not.toMatch(/stack|Maximum call/i);
  });

  it("judges a body at the limit by its schema, not its depth", async () => {
    const res = await post(inPhone(MAX_JSON_DEPTH - 1), json);
    expectInvalid(res, "phone");
  });

  it("does not count brackets inside strings, escaped quotes included", async () => {
    const address = `\\"${"[".repeat(300)}{{{`;
    const res = await post(`{"type":"CLIENT","name":"x","address":"${address}"}`, json);
    expect(expectData(res, 201)).toMatchObject({ id: expect.any(String) });
  });
});

describe("a byte order mark (RFC 8259 §8.1)", () => {
  it("refuses a body that starts with one", async () => {
    const res = await post(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(VALID)]), json);
    await expectRefused(res);
    expect((res.body as { error: { message: string } }).error.message).toMatch(/byte order mark/);
  });

  it("accepts U+FEFF inside a string", async () => {
    const res = await post('{"type":"CLIENT","name":"a\uFEFFb"}', json);
    expect(expectData(res, 201)).toMatchObject({ name: "a\uFEFFb" });
  });
});

describe("media type (spec-gaps #13)", () => {
  it.each([
    ["no Content-Type", {}],
    ["text/plain", { "Content-Type": "text/plain" }],
    ["application/x-www-form-urlencoded", { "Content-Type": "application/x-www-form-urlencoded" }],
    ["application/vnd.api+json", { "Content-Type": "application/vnd.api+json" }],
    ["application/merge-patch+json", { "Content-Type": "application/merge-patch+json" }],
    ["multipart/form-data", { "Content-Type": "multipart/form-data; boundary=x" }],
    ["application/jsonx", { "Content-Type": "application/jsonx" }],
    ["text/json", { "Content-Type": "text/json" }],
    ["charset=latin1", { "Content-Type": "application/json; charset=latin1" }],
    ["charset=iso-8859-1", { "Content-Type": "application/json; charset=iso-8859-1" }],
    ["charset=utf-16", { "Content-Type": "application/json; charset=utf-16" }],
  ])("refuses a valid JSON body sent as %s with 400", async (_why, headers) => {
    await expectRefused(await post(VALID, headers));
  });

  it.each([
    "application/json",
    "application/json; charset=utf-8",
    "application/json;charset=utf-8",
    "application/json; charset=UTF-8",
    'application/json; charset="utf-8"',
    "Application/JSON",
  ])("accepts Content-Type %s", async (contentType) => {
    expectData(await post(VALID, { "Content-Type": contentType }), 201);
  });

  it("refuses a products body sent as text/plain too", async () => {
    await expectRefused(
      await post('{"sku":"A","name":"x","unitPrice":1}', { "Content-Type": "text/plain" }, PRODUCTS),
    );
  });
});

describe("two Content-Type headers (RFC 9110 §5.3: one value)", () => {
  // Node keeps only the first in req.headers, so only raw bytes over a socket show the second.
  let server: Server | undefined;
  afterEach(async () => {
    if (server !== undefined) await close(server);
    server = undefined;
  });

  it.each([
    ["the same type twice", ["application/json", "application/json"]],
    ["JSON, then text", ["application/json", "text/plain"]],
    ["text, then JSON", ["text/plain", "application/json"]],
  ])("refuses %s with 400 and stores nothing", async (_why, types) => {
    server = createServer(ref.app);
    const port = await listen(server);
    const bytes = rawRequest(
      `POST ${CONTACTS} HTTP/1.1`,
      [
        "Host: 127.0.0.1",
        `Authorization: ${ref.auth("lumiere-full").Authorization}`,
        ...types.map((t) => `Content-Type: ${t}`),
        `Content-Length: ${Buffer.byteLength(VALID)}`,
      ],
      VALID,
    );
    const error = expectEnvelope(only(await exchange(port, bytes)), 400, "invalid_request");
    expect(error.message).toMatch(/Content-Type/);
    expect(ref.store.countContacts("org_lumiere")).toBe(contactsBefore);
  });
});

describe("bytes that are not UTF-8", () => {
  const withBytes = (bytes: number[]) =>
    Buffer.concat([Buffer.from('{"type":"CLIENT","name":"'), Buffer.from(bytes), Buffer.from('"}')]);

  it.each([
    ["a lone continuation byte", [0x80]],
    ["0xFF", [0xff]],
    ["a truncated sequence", [0xc3]],
    ["an overlong encoding of /", [0xc0, 0xaf]],
    ["an encoded surrogate", [0xed, 0xa0, 0x80]],
    ["Latin-1 é", [0xe9]],
  ])("refuses %s with 400", async (_why, bytes) => {
    await expectRefused(await post(withBytes(bytes), json));
  });

  it("accepts the same text correctly encoded", async () => {
    const res = await post(withBytes([...Buffer.from("é", "utf8")]), json);
    expect(expectData(res, 201)).toMatchObject({ name: "é" });
  });
});

describe("bodies that are not a JSON object", () => {
  it.each([
    ["empty", ""],
    ["only whitespace", "   \n"],
    ["an array", `[${VALID}]`],
    ["an empty array", "[]"],
    ["a string", '"CLIENT"'],
    ["a number", "42"],
    ["null", "null"],
    ["true", "true"],
  ])("refuses a body that is %s with 400", async (_why, body) => {
    await expectRefused(await post(body, json));
  });

  it("refuses a POST without any body with 400", async () => {
    const res = await request(ref.app).post(CONTACTS).set(ref.auth("lumiere-full")).set(json);
    await expectRefused(res);
  });
});

describe("strict parsing", () => {
  it("refuses duplicate keys with different values", async () => {
    await expectRefused(await post('{"type":"CLIENT","name":"first","name":"second"}', json));
  });

  it("refuses a duplicate key whose second value is invalid", async () => {
    await expectRefused(await post('{"type":"CLIENT","name":"x","type":"NOPE"}', json));
  });

  // The key would otherwise vanish through the prototype setter instead of being reported.
  it.each([
    ["an object", '{"a":1}'],
    ["null", "null"],
    ["an empty object", "{}"],
    ["a string", '"x"'],
    ["a boolean", "true"],
    ["a number", "1"],
    ["an array", "[]"],
  ])("refuses a __proto__ key holding %s", async (_why, value) => {
    await expectRefused(await post(`{"type":"CLIENT","name":"x","__proto__":${value}}`, json));
  });

  it.each([
    ["an escaped underscore", '"\\u005f_proto__"'],
    ["escaped letters", '"__\\u0070roto__"'],
  ])("refuses a __proto__ key written with %s", async (_why, key) => {
    await expectRefused(await post(`{"type":"CLIENT","name":"x",${key}:"x"}`, json));
  });

  it("refuses a __proto__ key in a product body", async () => {
    await expectRefused(
      await post('{"sku":"P1","name":"x","unitPrice":1,"__proto__":{"taxable":false}}', json, PRODUCTS),
    );
  });

  it("does not let a __proto__ key change what other objects see", async () => {
    await post('{"type":"CLIENT","name":"x","__proto__":{"polluted":true}}', json);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe("content encoding", () => {
  const body = Buffer.from(VALID);
  it.each([
    ["gzip", gzipSync(body)],
    ["deflate", deflateSync(body)],
    ["br", brotliCompressSync(body)],
    ["x-unknown", body],
  ])("refuses Content-Encoding %s with 400", async (encoding, bytes) => {
    await expectRefused(await post(bytes, { ...json, "Content-Encoding": encoding }));
  });
});

describe("size cap (spec-gaps #15)", () => {
  let server: Server | undefined;
  afterEach(async () => {
    const s = server;
    server = undefined;
    if (s !== undefined) await new Promise<void>((resolve) => s.close(() => resolve()));
  });

  /** A valid body padded with JSON whitespace to exactly `size` bytes. */
  const padded = (size: number) => VALID + " ".repeat(size - Buffer.byteLength(VALID));

  it("caps bodies at 100 kB", () => {
    expect(DEFAULT_BODY_LIMIT_BYTES).toBe(100 * 1024);
  });

  it("accepts a body of exactly the cap", async () => {
    expectData(await post(padded(DEFAULT_BODY_LIMIT_BYTES), json), 201);
  });

  it("refuses a body one byte over the cap with 400 invalid_request", async () => {
    await expectRefused(await post(padded(DEFAULT_BODY_LIMIT_BYTES + 1), json));
  });

  it("refuses a body far over the cap and still answers the next request", async () => {
    server = ref.app.listen(0, "127.0.0.1");
    await new Promise<void>((resolve) => server?.once("listening", () => resolve()));
    const huge = `{"type":"CLIENT","name":"${"x".repeat(5 * DEFAULT_BODY_LIMIT_BYTES)}"}`;
    const refused = await request(server).post(CONTACTS).set(ref.auth("lumiere-full")).set(json).send(huge);
    await expectRefused(refused);
    const next = await request(server).post(CONTACTS).set(ref.auth("lumiere-full")).set(json).send(VALID);
    expectData(next, 201);
  });

  it("refuses a chunked body without Content-Length once it passes the cap", async () => {
    server = ref.app.listen(0, "127.0.0.1");
    await new Promise<void>((resolve) => server?.once("listening", () => resolve()));
    const { port } = server.address() as AddressInfo;
    const answer = await new Promise<{ status: number; body: unknown }>((resolve, reject) => {
      const req = httpRequest(
        {
          host: "127.0.0.1",
          port,
          method: "POST",
          path: CONTACTS,
          headers: { ...ref.auth("lumiere-full"), ...json, "Transfer-Encoding": "chunked" },
        },
        (res) => {
          let text = "";
          res.setEncoding("utf8");
          res.on("data", (chunk: string) => (text += chunk));
          res.on("end", () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as unknown }));
        },
      );
      // The server may answer and close before every chunk is written.
      req.on("error", reject);
      req.write('{"type":"CLIENT","name":"');
      for (let i = 0; i < 20; i += 1) req.write("x".repeat(10_000));
      req.end('"}');
    });
    expect(answer).toMatchObject({ status: 400, body: { error: { code: "invalid_request" } } });
    expect(ref.store.countContacts("org_lumiere")).toBe(contactsBefore);
  });
});

describe("oversized bodies are refused without being read (issue 7, point 7)", () => {
  let server: Server | undefined;
  let port: number;
  beforeEach(async () => {
    server = createServer(ref.app);
    port = await listen(server);
  });
  afterEach(async () => {
    if (server !== undefined) await close(server);
    server = undefined;
  });

  const head = (framing: string) =>
    rawRequest(`POST ${CONTACTS} HTTP/1.1`, [
      "Host: 127.0.0.1",
      `Authorization: ${ref.auth("lumiere-full").Authorization}`,
      "Content-Type: application/json",
      framing,
    ]);

  // Each client below sends less than it announces and then waits: only an answer given before
  // the body is read can reach it.
  it("answers a declared Content-Length over the cap at once, from the header alone", async () => {
    const result = await exchange(port, [head("Content-Length: 50000000"), '{"type":"CLIENT","name":"']);
    const res = only(result);
    const error = expectEnvelope(res, 400, "invalid_request");
    expect(error.message).toMatch(String(DEFAULT_BODY_LIMIT_BYTES));
    expect(res.headers.get("connection")).toEqual(["close"]);
    expect(ref.store.countContacts("org_lumiere")).toBe(contactsBefore);
  });

  it("answers a chunked body that never ends as soon as it passes the cap", async () => {
    const chunk = (text: string) => `${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n`;
    const filler = Array.from({ length: Math.ceil(DEFAULT_BODY_LIMIT_BYTES / 8192) + 2 }, () =>
      chunk("x".repeat(8192)),
    );
    const result = await exchange(port, [
      head("Transfer-Encoding: chunked"),
      chunk('{"type":"CLIENT","name":"'),
      ...filler,
    ]);
    const res = only(result);
    expectEnvelope(res, 400, "invalid_request");
    expect(res.headers.get("connection")).toEqual(["close"]);
    expect(ref.store.countContacts("org_lumiere")).toBe(contactsBefore);
  });

  it("closes the connection after any refusal sent before the body was read, rather than drain it", async () => {
    const bytes = rawRequest(`POST ${CONTACTS} HTTP/1.1`, [
      "Host: 127.0.0.1",
      "Content-Type: application/json",
      "Content-Length: 50000000",
    ]);
    const res = only(await exchange(port, bytes));
    expectEnvelope(res, 401, "unauthorized");
    expect(res.headers.get("connection")).toEqual(["close"]);
  });

  it("keeps the connection open after refusing requests that have no body", async () => {
    const bare = rawRequest(`GET ${CONTACTS} HTTP/1.1`, ["Host: 127.0.0.1"]);
    const result = await exchange(port, [bare, bare], { responses: 2 });
    expect(result.responses.map((r) => [r.status, r.headers.get("connection")?.[0]])).toEqual([
      [401, "keep-alive"],
      [401, "keep-alive"],
    ]);
  });

  it("keeps the connection open after a body it read in full", async () => {
    const bad = "{";
    const good = VALID;
    const request = (body: string) =>
      rawRequest(
        `POST ${CONTACTS} HTTP/1.1`,
        [
          "Host: 127.0.0.1",
          `Authorization: ${ref.auth("lumiere-full").Authorization}`,
          "Content-Type: application/json",
          `Content-Length: ${Buffer.byteLength(body)}`,
        ],
        body,
      );
    const result = await exchange(port, [request(bad), request(good)], { responses: 2 });
    expect(result.responses.map((r) => r.status)).toEqual([400, 201]);
  });
});

describe("a body read before the app", () => {
  // What the kit's variant harness does: read the body, maybe rewrite it, leave it on req.body.
  it("is taken from req.body once the request has been read to its end, as body-parser took it", async () => {
    const wrapper = createHttpServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8").replace("Before", "Rewritten");
        Object.assign(req, { body: Buffer.from(text) });
        ref.app(req, res);
      });
    });
    const port = await listen(wrapper);
    try {
      const res = await request(`http://127.0.0.1:${port}`)
        .post(CONTACTS)
        .set(ref.auth("lumiere-full"))
        .send({ type: "CLIENT", name: "Before" });
      expect(expectData(res, 201)).toMatchObject({ name: "Rewritten" });
    } finally {
      await close(wrapper);
    }
  });
});
