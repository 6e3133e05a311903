import { post, HOST, CONTACTS, PRODUCTS, req, bearer, postJson, chunk, type Probe } from "./probe.js";

// JSON bodies: malformed, deep, huge, oddly encoded or typed, and what must still be read.

const TYPED = '{"type":"CLIENT","name":"Typed"}';
/** A small contact sent with these Content-Type lines. */
const typed = (...types: string[]) =>
  post([...types.map((t) => `Content-Type: ${t}`), `Content-Length: ${TYPED.length}`], TYPED);

export const json: Probe[] = [
  {
    name: "10 000 nested arrays",
    send: postJson(`{"type":"CLIENT","name":${"[".repeat(10_000)}${"]".repeat(10_000)}}`),
    status: 400,
  },
  {
    name: "10 000 nested objects",
    send: postJson(`${'{"a":'.repeat(10_000)}1${"}".repeat(10_000)}`),
    status: 400,
  },
  { name: "50 000 unclosed arrays", send: postJson("[".repeat(50_000)), status: 400 },
  {
    name: "a byte order mark",
    send: postJson(
      Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"type":"CLIENT","name":"Bom"}')]),
    ),
    status: 400,
  },
  {
    name: "UTF-16 text",
    send: postJson(Buffer.from('{"type":"CLIENT","name":"Utf16"}', "utf16le")),
    status: 400,
  },
  {
    name: "invalid UTF-8",
    send: postJson(
      Buffer.concat([Buffer.from('{"type":"CLIENT","name":"'), Buffer.from([0xc3, 0x28]), Buffer.from('"}')]),
    ),
    status: 400,
  },
  { name: "a lone surrogate escape", send: postJson('{"type":"CLIENT","name":"a\\ud800b"}'), status: 400 },
  { name: "an escaped NUL in a name", send: postJson('{"type":"CLIENT","name":"a\\u0000b"}') },
  {
    name: "a name of only zero-width characters",
    send: postJson('{"type":"CLIENT","name":"\\u200b\\u200b"}'),
    status: 400,
  },
  {
    name: "9 000 unknown keys",
    send: postJson(
      `{"type":"CLIENT","name":"x",${Array.from({ length: 9000 }, (_, i) => `"u${i}":1`).join(",")}}`,
    ),
    status: 400,
  },
  {
    name: "a __proto__ key",
    send: postJson('{"type":"CLIENT","name":"x","__proto__":{"admin":true}}'),
    status: 400,
  },
  {
    name: "a constructor key",
    send: postJson('{"type":"CLIENT","name":"x","constructor":{"prototype":{}}}'),
    status: 400,
  },
  { name: "duplicate keys", send: postJson('{"type":"CLIENT","name":"a","name":"b"}'), status: 400 },
  { name: "an empty body", send: postJson(""), status: 400 },
  { name: "null", send: postJson("null"), status: 400 },
  { name: "an array", send: postJson("[]"), status: 400 },
  {
    name: "a 100 000-character name",
    send: postJson(`{"type":"CLIENT","name":"${"n".repeat(100_000)}"}`),
    status: 400,
  },
  {
    name: "a body one byte over the cap",
    send: postJson(`{"type":"CLIENT","name":"x"}${" ".repeat(102_400)}`),
    status: 400,
  },
  ...[
    "1e999999",
    "-0",
    "1e-9000000000000001",
    "0.00001",
    "1".repeat(10_000),
    "-1",
    "Infinity",
    "NaN",
    "0x10",
    "1.0e+2",
  ].map(
    (price): Probe => ({
      name: `unitPrice ${price.length > 20 ? `${price.slice(0, 10)}… (${price.length} digits)` : price}`,
      send: postJson(
        `{"sku":"ABUSE-${price.length}-${price.slice(0, 8)}","name":"x","unitPrice":${price}}`,
        PRODUCTS,
      ),
    }),
  ),
  {
    name: "a string unitPrice",
    send: postJson('{"sku":"ABUSE-S","name":"x","unitPrice":"1"}', PRODUCTS),
    status: 400,
  },
  ...[
    "text/plain",
    "application/json; charset=utf-16",
    "application/json; charset",
    "application/json, text/plain",
    "multipart/form-data; boundary=x",
    "",
  ].map(
    (type): Probe => ({
      name: `Content-Type ${JSON.stringify(type)}`,
      send: typed(type),
      status: 400,
    }),
  ),
  {
    name: "two Content-Type headers",
    send: typed("application/json", "text/plain"),
    status: 400,
  },
  // RFC 9110 §8.3.1 allows empty parameters.
  {
    name: "Content-Type with empty parameters",
    send: typed("application/json;;"),
    status: 201,
  },
  {
    name: "Content-Encoding gzip",
    send: postJson('{"type":"CLIENT","name":"Zip"}', CONTACTS, ["Content-Encoding: gzip"]),
    status: 400,
  },
  {
    name: "a declared 50 MB body, never sent",
    send: (ctx) =>
      req(`POST ${CONTACTS} HTTP/1.1`, [
        HOST,
        bearer(ctx),
        "Content-Type: application/json",
        "Content-Length: 50000000",
      ]),
    status: 400,
  },
  {
    name: "a chunked body past the cap, never ended",
    send: (ctx) => [
      req(`POST ${CONTACTS} HTTP/1.1`, [
        HOST,
        bearer(ctx),
        "Content-Type: application/json",
        "Transfer-Encoding: chunked",
      ]),
      ...Array.from({ length: 14 }, () => chunk("x".repeat(8192))),
    ],
    status: 400,
  },
  {
    name: "a body on a GET",
    send: (ctx) => req(`GET ${CONTACTS}?limit=1 HTTP/1.1`, [HOST, bearer(ctx), "Content-Length: 4"], "abcd"),
    status: 200,
  },
];
