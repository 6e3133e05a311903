import { post, HOST, CONTACTS, req, bearer, get, chunk, bytesFrom, type Probe } from "./probe.js";

// Framing: methods, request lines, headers, lengths and encodings a parser must refuse or read right.

export const framing: Probe[] = [
  // Methods
  ...["get", "post", "FOO", "GETT", "G-T", "PROPFIND_"].map(
    (method): Probe => ({
      name: `method ${JSON.stringify(method)}`,
      send: () => req(`${method} ${CONTACTS} HTTP/1.1`, [HOST]),
      status: 400,
    }),
  ),
  {
    name: "a 1 000-character method",
    send: () => req(`${"G".repeat(1000)} / HTTP/1.1`, [HOST]),
    status: 400,
  },
  { name: "TRACE", send: (ctx) => req(`TRACE ${CONTACTS} HTTP/1.1`, [HOST, bearer(ctx)]), status: 404 },
  { name: "PROPFIND", send: (ctx) => req(`PROPFIND ${CONTACTS} HTTP/1.1`, [HOST, bearer(ctx)]), status: 404 },
  {
    name: "HEAD",
    send: (ctx) => req(`HEAD ${CONTACTS} HTTP/1.1`, [HOST, bearer(ctx)]),
    status: 404,
    bodiless: true,
  },
  // llhttp lets two spaces through; the method is a known one, so the app answers.
  { name: "M-SEARCH with two spaces", send: () => req(`M-SEARCH  ${CONTACTS} HTTP/1.1`, [HOST]) },
  {
    name: "CONNECT",
    send: () => req("CONNECT example.com:443 HTTP/1.1", ["Host: example.com:443"]),
    status: 400,
  },
  { name: "an HTTP/2 preface", send: () => "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", status: 400 },
  // Versions
  ...["HTTP/1.2", "HTTP/2.0", "HTTP/3.0", "HTTP/0.9", "http/1.1", "HTTP/1.1 x", "HTTP/11", "HTTP/1.10"].map(
    (version): Probe => ({
      name: `version ${JSON.stringify(version)}`,
      send: () => req(`GET ${CONTACTS} ${version}`, [HOST]),
      status: 400,
    }),
  ),
  { name: "no version (HTTP/0.9 style)", send: () => `GET ${CONTACTS}\r\n\r\n`, status: 400 },
  // Request targets
  { name: "NUL in the path", send: () => req("GET /api/v1/con\0tacts HTTP/1.1", [HOST]), status: 400 },
  { name: "a space in the path", send: () => req("GET /api/v1/con tacts HTTP/1.1", [HOST]), status: 400 },
  { name: "DEL in the path", send: () => req("GET /api/v1/con\x7ftacts HTTP/1.1", [HOST]), status: 400 },
  { name: "an encoded NUL in the path", send: get("/api/v1/contacts%00"), status: 404 },
  { name: "a malformed percent in the path", send: get("/api/v1/%E0%A4%A"), status: 404 },
  { name: "a dot segment", send: get("/api/v1/invoices/../contacts"), status: 404 },
  { name: "a doubled slash", send: get("//api/v1/contacts"), status: 404 },
  { name: "a backslash", send: get("/api\\v1\\contacts"), status: 404 },
  { name: "an absolute-form target", send: get("http://evil.example/api/v1/contacts?limit=1"), status: 200 },
  { name: "an authority-form target with GET", send: get("evil.example:443"), status: 400 },
  { name: "the asterisk with GET", send: get("*"), status: 404 },
  { name: "OPTIONS *", send: () => req("OPTIONS * HTTP/1.1", [HOST]) },
  { name: "a 20 KB path", send: get(`/${"a".repeat(20_000)}`), status: 400 },
  { name: "a fragment in the target", send: get(`${CONTACTS}?limit=1#frag`) },
  // Header lines
  { name: "a folded header", send: get(CONTACTS, (ctx) => [bearer(ctx), "X-A: a", " b"]), status: 400 },
  { name: "a space before the colon", send: get(CONTACTS, (ctx) => [bearer(ctx), "X-A : a"]), status: 400 },
  { name: "a header without a colon", send: get(CONTACTS, (ctx) => [bearer(ctx), "X-A"]), status: 400 },
  { name: "an empty header name", send: get(CONTACTS, (ctx) => [bearer(ctx), ": a"]), status: 400 },
  { name: "NUL in a header value", send: get(CONTACTS, (ctx) => [bearer(ctx), "X-A: a\0b"]), status: 400 },
  {
    name: "a bare CR in a header value",
    send: get(CONTACTS, (ctx) => [bearer(ctx), "X-A: a\rb"]),
    status: 400,
  },
  {
    name: "bare LF line ends",
    send: (ctx) => `GET ${CONTACTS} HTTP/1.1\n${HOST}\n${bearer(ctx)}\n\n`,
    status: 400,
  },
  {
    name: "Latin-1 bytes in a header value",
    send: get(CONTACTS, (ctx) => [bearer(ctx), "X-A: caf\xe9"]),
    status: 200,
  },
  {
    name: "a 20 KB header",
    send: get(CONTACTS, (ctx) => [bearer(ctx), `X-A: ${"a".repeat(20_000)}`]),
    status: 400,
  },
  {
    name: "40 cookies of 500 bytes",
    send: get(CONTACTS, (ctx) => [
      bearer(ctx),
      ...Array.from({ length: 40 }, (_, i) => `Cookie: c${i}=${"v".repeat(500)}`),
    ]),
    status: 400,
  },
  {
    name: "3 000 header lines",
    send: get(CONTACTS, (ctx) => [bearer(ctx), ...Array.from({ length: 3000 }, () => "a: 1")]),
    status: 200,
  },
  { name: "no Host", send: (ctx) => req(`GET ${CONTACTS} HTTP/1.1`, [bearer(ctx)]), status: 400 },
  { name: "two Host headers", send: get(CONTACTS, (ctx) => [bearer(ctx), "Host: other"]), status: 400 },
  {
    name: "an HTTP/1.0 request without Host",
    send: (ctx) => req(`GET ${CONTACTS} HTTP/1.0`, [bearer(ctx)]),
    status: 200,
  },
  // Framing of the body
  ...["-1", "abc", "1e3", "0x10", "99999999999999999999999", "1, 2"].map(
    (length): Probe => ({
      name: `Content-Length ${JSON.stringify(length)}`,
      send: (ctx) => req(`POST ${CONTACTS} HTTP/1.1`, [HOST, bearer(ctx), `Content-Length: ${length}`]),
      status: 400,
    }),
  ),
  {
    name: "two equal Content-Lengths",
    send: post(["Content-Length: 2", "Content-Length: 2"], "{}"),
    status: 400,
  },
  {
    name: "two different Content-Lengths",
    send: post(["Content-Length: 2", "Content-Length: 3"], "{}x"),
    status: 400,
  },
  {
    name: "Content-Length with Transfer-Encoding",
    send: post(["Content-Length: 5", "Transfer-Encoding: chunked"], "0\r\n\r\n"),
    status: 400,
  },
  ...["gzip", "identity", "gzip, chunked", "chunked, chunked", "chunked;q=1", "xchunked"].map(
    (te): Probe => ({
      name: `Transfer-Encoding ${JSON.stringify(te)}`,
      send: post([`Transfer-Encoding: ${te}`], "0\r\n\r\n"),
      status: 400,
    }),
  ),
  {
    name: "two Transfer-Encoding lines",
    send: post(["Transfer-Encoding: chunked", "Transfer-Encoding: chunked"], "0\r\n\r\n"),
    status: 400,
  },
  ...["zz", "-1", "ffffffffffffffffffff", "1 1", ""].map(
    (size): Probe => ({
      name: `chunk size ${JSON.stringify(size)}`,
      send: post(
        ["Content-Type: application/json", "Transfer-Encoding: chunked"],
        `${size}\r\nx\r\n0\r\n\r\n`,
      ),
      status: 400,
    }),
  ),
  {
    name: "chunk extensions of 20 KB",
    send: post(["Transfer-Encoding: chunked"], `1;${"e".repeat(20_000)}\r\nx\r\n0\r\n\r\n`),
    status: 400,
  },
  {
    name: "chunk data longer than its size",
    send: post(["Content-Type: application/json", "Transfer-Encoding: chunked"], "2\r\n{}}\r\n0\r\n\r\n"),
    status: 400,
  },
  {
    name: "a chunked body with trailers",
    send: post(
      ["Content-Type: application/json", "Transfer-Encoding: chunked"],
      `${chunk('{"type":"CLIENT","name":"Trailer"}')}0\r\nX-Trailer: 1\r\n\r\n`,
    ),
    status: 201,
  },
  {
    name: "a Content-Length shorter than the body (the rest is a second, malformed request)",
    send: post(["Content-Type: application/json", "Content-Length: 2"], '{}"type":"CLIENT"}'),
    responses: 2,
  },
  { name: "Expect: foo", send: get(CONTACTS, (ctx) => [bearer(ctx), "Expect: foo"]), status: 400 },
  {
    name: "Expect: 100-continue on a GET",
    send: get(`${CONTACTS}?limit=1`, (ctx) => [bearer(ctx), "Expect: 100-continue"]),
    responses: 2,
  },
  {
    name: "Upgrade: websocket",
    send: get(`${CONTACTS}?limit=1`, (ctx) => [bearer(ctx), "Connection: Upgrade", "Upgrade: websocket"]),
    status: 200,
  },
  {
    name: "Upgrade: h2c",
    send: get(`${CONTACTS}?limit=1`, (ctx) => [
      bearer(ctx),
      "Connection: Upgrade, HTTP2-Settings",
      "Upgrade: h2c",
      "HTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA",
    ]),
    status: 200,
  },
  // Many requests on one connection
  {
    name: "50 pipelined GETs",
    send: (ctx) =>
      Array.from({ length: 50 }, () => req(`GET ${CONTACTS}?limit=1 HTTP/1.1`, [HOST, bearer(ctx)])).join(""),
    responses: 50,
    status: 200,
  },
  {
    name: "a good GET, then a malformed one, pipelined",
    send: (ctx) => [
      req(`GET ${CONTACTS}?limit=1 HTTP/1.1`, [HOST, bearer(ctx)]),
      req(`get ${CONTACTS} HTTP/1.1`, [HOST]),
    ],
    responses: 2,
  },
  // Not HTTP at all
  { name: "a TLS ClientHello", send: () => Buffer.from("16030100a5010000a10303", "hex"), status: 400 },
  ...[1, 2, 3, 4, 5].map(
    (seed): Probe => ({
      name: `512 random bytes (seed ${seed})`,
      send: () => bytesFrom(seed, 512),
      status: 400,
    }),
  ),
  { name: "an SSH banner", send: () => "SSH-2.0-OpenSSH_9.6\r\n", status: 400 },
];
