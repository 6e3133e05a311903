import { brotliCompressSync, deflateSync, gzipSync } from "node:zlib";
import request from "supertest";
import { describe, expect } from "vitest";
import { MAX_JSON_DEPTH } from "../../validation/json.js";
import { CONTACTS, PRODUCTS, VALID, bodyTest, json } from "../../test-support/bodies.js";
import { exchange, expectEnvelope, only, rawRequest } from "../../test-support/raw-http.js";
import { expectData, expectInvalid } from "../../test-support/reference.js";

// What a request body may be: JSON, one object, UTF-8, of the one media type, unencoded, parsed strictly.

const it = bodyTest;

/** Each body, sent as JSON, is refused with 400, and nothing is stored. */
const refusesEach = (title: string, rows: readonly (readonly [string, string])[]) =>
  it.for(rows)(title, async ([_why, body], { h }) => {
    await h.expectRefused(await h.post(body, json));
  });

describe("malformed JSON (spec-gaps #14)", () => {
  refusesEach("refuses %s with 400", [
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
  ] as const);
});

describe("deep nesting (issue 7, point 6)", () => {
  const nested = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`;
  const inPhone = (depth: number) => `{"type":"CLIENT","name":"x","phone":${nested(depth)}}`;

  it.for([
    ["one level over the limit", inPhone(MAX_JSON_DEPTH)],
    ["10 000 levels", inPhone(10_000)],
    ["50 000 levels, never closed", `{"type":"CLIENT","name":"x","phone":${"[".repeat(50_000)}`],
    ["10 000 levels of objects", `${'{"a":'.repeat(10_000)}1${"}".repeat(10_000)}`],
  ] as const)("refuses %s with a message of our own, naming the limit", async ([_why, body], { h }) => {
    const res = await h.post(body, json);
    await h.expectRefused(res);
    const { message } = (res.body as { error: { message: string } }).error;
    expect(message).toContain(`nested deeper than ${MAX_JSON_DEPTH} levels`);
    expect(message).not.toMatch(/stack|Maximum call/i);
  });

  it("judges a body at the limit by its schema, not its depth", async ({ h }) => {
    const res = await h.post(inPhone(MAX_JSON_DEPTH - 1), json);
    expectInvalid(res, "phone");
  });

  it("does not count brackets inside strings, escaped quotes included", async ({ h }) => {
    const address = `\\"${"[".repeat(300)}{{{`;
    const res = await h.post(`{"type":"CLIENT","name":"x","address":"${address}"}`, json);
    expect(expectData(res, 201)).toMatchObject({ id: expect.any(String) });
  });
});

describe("a byte order mark (RFC 8259 §8.1)", () => {
  it("refuses a body that starts with one", async ({ h }) => {
    const res = await h.post(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(VALID)]), json);
    await h.expectRefused(res);
    expect((res.body as { error: { message: string } }).error.message).toMatch(/byte order mark/);
  });

  it("accepts U+FEFF inside a string", async ({ h }) => {
    const res = await h.post('{"type":"CLIENT","name":"a\uFEFFb"}', json);
    expect(expectData(res, 201)).toMatchObject({ name: "a\uFEFFb" });
  });
});

describe("media type (spec-gaps #13)", () => {
  it.for([
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
  ] as const)("refuses a valid JSON body sent as %s with 400", async ([_why, headers], { h }) => {
    await h.expectRefused(await h.post(VALID, headers));
  });

  it.for([
    "application/json",
    "application/json; charset=utf-8",
    "application/json;charset=utf-8",
    "application/json; charset=UTF-8",
    'application/json; charset="utf-8"',
    "Application/JSON",
  ])("accepts Content-Type %s", async (contentType, { h }) => {
    expectData(await h.post(VALID, { "Content-Type": contentType }), 201);
  });

  it("refuses a products body sent as text/plain too", async ({ h }) => {
    await h.expectRefused(
      await h.post('{"sku":"A","name":"x","unitPrice":1}', { "Content-Type": "text/plain" }, PRODUCTS),
    );
  });
});

describe("two Content-Type headers (RFC 9110 §5.3: one value)", () => {
  // Node keeps only the first in req.headers, so only raw bytes over a socket show the second.

  it.for([
    ["the same type twice", ["application/json", "application/json"]],
    ["JSON, then text", ["application/json", "text/plain"]],
    ["text, then JSON", ["text/plain", "application/json"]],
  ] as const)("refuses %s with 400 and stores nothing", async ([_why, types], { h, serve }) => {
    const port = await serve(h.ref.app);
    const bytes = rawRequest(
      `POST ${CONTACTS} HTTP/1.1`,
      [
        "Host: 127.0.0.1",
        `Authorization: ${h.ref.auth("lumiere-full").Authorization}`,
        ...types.map((t) => `Content-Type: ${t}`),
        `Content-Length: ${Buffer.byteLength(VALID)}`,
      ],
      VALID,
    );
    const error = expectEnvelope(only(await exchange(port, bytes)), 400, "invalid_request");
    expect(error.message).toMatch(/Content-Type/);
    expect(h.ref.store.countContacts("org_lumiere")).toBe(h.contactsBefore);
  });
});

describe("bytes that are not UTF-8", () => {
  const withBytes = (bytes: number[]) =>
    Buffer.concat([Buffer.from('{"type":"CLIENT","name":"'), Buffer.from(bytes), Buffer.from('"}')]);

  it.for<[string, number[]]>([
    ["a lone continuation byte", [0x80]],
    ["0xFF", [0xff]],
    ["a truncated sequence", [0xc3]],
    ["an overlong encoding of /", [0xc0, 0xaf]],
    ["an encoded surrogate", [0xed, 0xa0, 0x80]],
    ["Latin-1 é", [0xe9]],
  ])("refuses %s with 400", async ([_why, bytes], { h }) => {
    await h.expectRefused(await h.post(withBytes(bytes), json));
  });

  it("accepts the same text correctly encoded", async ({ h }) => {
    const res = await h.post(withBytes([...Buffer.from("é", "utf8")]), json);
    expect(expectData(res, 201)).toMatchObject({ name: "é" });
  });
});

describe("bodies that are not a JSON object", () => {
  refusesEach("refuses a body that is %s with 400", [
    ["empty", ""],
    ["only whitespace", "   \n"],
    ["an array", `[${VALID}]`],
    ["an empty array", "[]"],
    ["a string", '"CLIENT"'],
    ["a number", "42"],
    ["null", "null"],
    ["true", "true"],
  ] as const);

  it("refuses a POST without any body with 400", async ({ h }) => {
    const res = await request(h.ref.app).post(CONTACTS).set(h.ref.auth("lumiere-full")).set(json);
    await h.expectRefused(res);
  });
});

describe("strict parsing", () => {
  it("refuses duplicate keys with different values", async ({ h }) => {
    await h.expectRefused(await h.post('{"type":"CLIENT","name":"first","name":"second"}', json));
  });

  it("refuses a duplicate key whose second value is invalid", async ({ h }) => {
    await h.expectRefused(await h.post('{"type":"CLIENT","name":"x","type":"NOPE"}', json));
  });

  // The key would otherwise vanish through the prototype setter instead of being reported.
  it.for([
    ["an object", '{"a":1}'],
    ["null", "null"],
    ["an empty object", "{}"],
    ["a string", '"x"'],
    ["a boolean", "true"],
    ["a number", "1"],
    ["an array", "[]"],
  ] as const)("refuses a __proto__ key holding %s", async ([_why, value], { h }) => {
    await h.expectRefused(await h.post(`{"type":"CLIENT","name":"x","__proto__":${value}}`, json));
  });

  it.for([
    ["an escaped underscore", '"\\u005f_proto__"'],
    ["escaped letters", '"__\\u0070roto__"'],
  ] as const)("refuses a __proto__ key written with %s", async ([_why, key], { h }) => {
    await h.expectRefused(await h.post(`{"type":"CLIENT","name":"x",${key}:"x"}`, json));
  });

  it("refuses a __proto__ key in a product body", async ({ h }) => {
    await h.expectRefused(
      await h.post('{"sku":"P1","name":"x","unitPrice":1,"__proto__":{"taxable":false}}', json, PRODUCTS),
    );
  });

  it("does not let a __proto__ key change what other objects see", async ({ h }) => {
    await h.post('{"type":"CLIENT","name":"x","__proto__":{"polluted":true}}', json);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe("content encoding", () => {
  const body = Buffer.from(VALID);
  it.for([
    ["gzip", gzipSync(body)],
    ["deflate", deflateSync(body)],
    ["br", brotliCompressSync(body)],
    ["x-unknown", body],
  ] as const)("refuses Content-Encoding %s with 400", async ([encoding, bytes], { h }) => {
    await h.expectRefused(await h.post(bytes, { ...json, "Content-Encoding": encoding }));
  });
});
