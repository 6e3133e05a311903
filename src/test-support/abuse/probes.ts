/**
 * The abuse suite's catalogue: requests as a hostile or clumsy client writes them, as raw bytes. Each
 * probe names what it sends and, where the answer is decided (DECISIONS.md), the status it must get;
 * every answer is also held to the suite's general rules (src/abuse.test.ts).
 */

export interface ProbeContext {
  /** A token with every scope (`lumiere-full`). */
  token: string;
  /** A fixture token by label. */
  tokenOf(label: string): string;
}

export interface Probe {
  name: string;
  /** What is written, in order, on one fresh connection. */
  send(ctx: ProbeContext): string | Buffer | (string | Buffer)[];
  /** The status every answer must have; undefined when several are acceptable. */
  status?: number;
  /** How many answers to wait for (pipelining); 1 by default. */
  responses?: number;
  /** Half-close after writing. */
  end?: boolean;
  /** The answers have no body (HEAD). */
  bodiless?: boolean;
}

export type ProbeClass = "framing" | "json" | "query" | "token" | "slow";

const HOST = "Host: 127.0.0.1";
const CONTACTS = "/api/v1/contacts";
const PRODUCTS = "/api/v1/products";
const LISTS = ["/api/v1/contacts", "/api/v1/products", "/api/v1/invoices", "/api/v1/expenses"];

const req = (line: string, headers: readonly string[], body = "") =>
  `${line}\r\n${headers.map((h) => `${h}\r\n`).join("")}\r\n${body}`;
const bearer = (ctx: ProbeContext) => `Authorization: Bearer ${ctx.token}`;
const get = (target: string, headers: (ctx: ProbeContext) => readonly string[] = (ctx) => [bearer(ctx)]) => {
  return (ctx: ProbeContext) => req(`GET ${target} HTTP/1.1`, [HOST, ...headers(ctx)]);
};
const postJson =
  (body: string | Buffer, path = CONTACTS, extra: readonly string[] = []) =>
  (ctx: ProbeContext) => {
    const bytes = typeof body === "string" ? Buffer.from(body, "utf8") : body;
    const head = req(`POST ${path} HTTP/1.1`, [
      HOST,
      bearer(ctx),
      "Content-Type: application/json",
      `Content-Length: ${bytes.length}`,
      ...extra,
    ]);
    return [head, bytes];
  };
const chunk = (text: string) => `${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n`;

/** A reproducible byte source (mulberry32), so that the garbage probes are the same in every run. */
function bytesFrom(seed: number, length: number): Buffer {
  let state = seed;
  const out = Buffer.alloc(length);
  for (let i = 0; i < length; i += 1) {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    out[i] = ((t ^ (t >>> 14)) >>> 0) & 0xff;
  }
  return out;
}

const framing: Probe[] = [
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
    send: (ctx) =>
      req(`POST ${CONTACTS} HTTP/1.1`, [HOST, bearer(ctx), "Content-Length: 2", "Content-Length: 2"], "{}"),
    status: 400,
  },
  {
    name: "two different Content-Lengths",
    send: (ctx) =>
      req(`POST ${CONTACTS} HTTP/1.1`, [HOST, bearer(ctx), "Content-Length: 2", "Content-Length: 3"], "{}x"),
    status: 400,
  },
  {
    name: "Content-Length with Transfer-Encoding",
    send: (ctx) =>
      req(
        `POST ${CONTACTS} HTTP/1.1`,
        [HOST, bearer(ctx), "Content-Length: 5", "Transfer-Encoding: chunked"],
        "0\r\n\r\n",
      ),
    status: 400,
  },
  ...["gzip", "identity", "gzip, chunked", "chunked, chunked", "chunked;q=1", "xchunked"].map(
    (te): Probe => ({
      name: `Transfer-Encoding ${JSON.stringify(te)}`,
      send: (ctx) =>
        req(`POST ${CONTACTS} HTTP/1.1`, [HOST, bearer(ctx), `Transfer-Encoding: ${te}`], "0\r\n\r\n"),
      status: 400,
    }),
  ),
  {
    name: "two Transfer-Encoding lines",
    send: (ctx) =>
      req(
        `POST ${CONTACTS} HTTP/1.1`,
        [HOST, bearer(ctx), "Transfer-Encoding: chunked", "Transfer-Encoding: chunked"],
        "0\r\n\r\n",
      ),
    status: 400,
  },
  ...["zz", "-1", "ffffffffffffffffffff", "1 1", ""].map(
    (size): Probe => ({
      name: `chunk size ${JSON.stringify(size)}`,
      send: (ctx) =>
        req(
          `POST ${CONTACTS} HTTP/1.1`,
          [HOST, bearer(ctx), "Content-Type: application/json", "Transfer-Encoding: chunked"],
          `${size}\r\nx\r\n0\r\n\r\n`,
        ),
      status: 400,
    }),
  ),
  {
    name: "chunk extensions of 20 KB",
    send: (ctx) =>
      req(
        `POST ${CONTACTS} HTTP/1.1`,
        [HOST, bearer(ctx), "Transfer-Encoding: chunked"],
        `1;${"e".repeat(20_000)}\r\nx\r\n0\r\n\r\n`,
      ),
    status: 400,
  },
  {
    name: "chunk data longer than its size",
    send: (ctx) =>
      req(
        `POST ${CONTACTS} HTTP/1.1`,
        [HOST, bearer(ctx), "Content-Type: application/json", "Transfer-Encoding: chunked"],
        "2\r\n{}}\r\n0\r\n\r\n",
      ),
    status: 400,
  },
  {
    name: "a chunked body with trailers",
    send: (ctx) =>
      req(
        `POST ${CONTACTS} HTTP/1.1`,
        [HOST, bearer(ctx), "Content-Type: application/json", "Transfer-Encoding: chunked"],
        `${chunk('{"type":"CLIENT","name":"Trailer"}')}0\r\nX-Trailer: 1\r\n\r\n`,
      ),
    status: 201,
  },
  {
    name: "a Content-Length shorter than the body (the rest is a second, malformed request)",
    send: (ctx) =>
      req(
        `POST ${CONTACTS} HTTP/1.1`,
        [HOST, bearer(ctx), "Content-Type: application/json", "Content-Length: 2"],
        '{}"type":"CLIENT"}',
      ),
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

const json: Probe[] = [
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
      send: (ctx) => {
        const body = '{"type":"CLIENT","name":"Typed"}';
        return req(
          `POST ${CONTACTS} HTTP/1.1`,
          [HOST, bearer(ctx), `Content-Type: ${type}`, `Content-Length: ${body.length}`],
          body,
        );
      },
      status: 400,
    }),
  ),
  {
    name: "two Content-Type headers",
    send: (ctx) => {
      const body = '{"type":"CLIENT","name":"Typed"}';
      return req(
        `POST ${CONTACTS} HTTP/1.1`,
        [
          HOST,
          bearer(ctx),
          "Content-Type: application/json",
          "Content-Type: text/plain",
          `Content-Length: ${body.length}`,
        ],
        body,
      );
    },
    status: 400,
  },
  // RFC 9110 §8.3.1 allows empty parameters.
  {
    name: "Content-Type with empty parameters",
    send: (ctx) => {
      const body = '{"type":"CLIENT","name":"Typed"}';
      return req(
        `POST ${CONTACTS} HTTP/1.1`,
        [HOST, bearer(ctx), "Content-Type: application/json;;", `Content-Length: ${body.length}`],
        body,
      );
    },
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

const query: Probe[] = LISTS.flatMap((path): Probe[] => [
  ...[
    "limit=0",
    "limit=-1",
    "limit=201",
    "limit=1e2",
    "limit=0x10",
    "limit=99999999999999999999",
    "limit=%00",
    "limit=%EF%BC%91",
    "limit=1&limit=1",
    "before=garbage",
    "before=275760-09-14",
    "before=2026-10-30T00:00:00.0001",
    `${Array.from({ length: 3000 }, (_, i) => `f${i % 10}`).join("&")}&limit=0`,
  ].map(
    (q): Probe => ({
      name: `${path}?${q.length > 60 ? `${q.slice(0, 40)}… (${q.length} chars)` : q}`,
      send: get(`${path}?${q}`),
      status: 400,
    }),
  ),
  ...[
    "limit=1&__proto__=1",
    "limit=1&limit[]=1",
    `limit=1&before=2026-10-30T00:00:00.${"1".repeat(5000)}Z`,
    "limit=1&constructor=x&hasOwnProperty=1&toString=",
    "limit=1&a[b]=c",
    "limit=1&%zz=%zz",
    "limit=1&%E2%82=1",
    "&&&limit=1&&&",
    "limit=1&before=2026-10-30T00:00:00.0001Z",
    "limit=1&before=1969-12-31T23:59:59.9995Z",
    `limit=1&pad=${"p".repeat(15_000)}`,
  ].map(
    (q): Probe => ({
      name: `${path}?${q.length > 60 ? `${q.slice(0, 40)}… (${q.length} chars)` : q}`,
      send: get(`${path}?${q}`),
      status: 200,
    }),
  ),
]);
query.push(
  ...["type=BOGUS", "type=client", "type=CLIENT&type=CLIENT", "type=CLIENT%00"].map(
    (q): Probe => ({ name: `${CONTACTS}?${q}`, send: get(`${CONTACTS}?${q}`), status: 400 }),
  ),
  ...["status=BOGUS", "status=paid", "status=PAID&status=SENT"].map(
    (q): Probe => ({ name: `/api/v1/invoices?${q}`, send: get(`/api/v1/invoices?${q}`), status: 400 }),
  ),
);

const token: Probe[] = [
  { name: "no Authorization", send: get(CONTACTS, () => []), status: 401 },
  { name: "an empty Authorization", send: get(CONTACTS, () => ["Authorization:"]), status: 401 },
  { name: "Bearer alone", send: get(CONTACTS, () => ["Authorization: Bearer"]), status: 401 },
  { name: "Basic", send: get(CONTACTS, (ctx) => [`Authorization: Basic ${ctx.token}`]), status: 401 },
  {
    name: "a tab after Bearer",
    send: get(CONTACTS, (ctx) => [`Authorization: Bearer\t${ctx.token}`]),
    status: 401,
  },
  {
    name: "a 10 000-character token",
    send: get(CONTACTS, () => [`Authorization: Bearer acct_${"A".repeat(10_000)}`]),
    status: 401,
  },
  {
    name: "a 1 MB token",
    send: get(CONTACTS, () => [`Authorization: Bearer acct_${"A".repeat(1_000_000)}`]),
    status: 400,
  },
  {
    name: "a non-ASCII token",
    send: get(CONTACTS, () => [
      "Authorization: Bearer acct_\xe9\xe9\xe9\xe9\xe9\xe9\xe9\xe9\xe9\xe9\xe9\xe9\xe9\xe9\xe9\xe9\xe9\xe9\xe9\xe9\xe9\xe9\xe9\xe9\xe9\xe9\xe9\xe9\xe9\xe9\xe9\xe9",
    ]),
    status: 401,
  },
  {
    name: "the token in the query string",
    send: (ctx) => req(`GET ${CONTACTS}?access_token=${ctx.token} HTTP/1.1`, [HOST]),
    status: 401,
  },
  {
    name: "two Authorization headers, same token",
    send: get(CONTACTS, (ctx) => [bearer(ctx), bearer(ctx)]),
    status: 401,
  },
  {
    name: "a second Authorization after 2 100 header lines",
    send: get(CONTACTS, (ctx) => [
      bearer(ctx),
      ...Array.from({ length: 2100 }, () => "a: 1"),
      "Authorization: Bearer x",
    ]),
    status: 401,
  },
  {
    name: "a revoked token",
    send: get(CONTACTS, (ctx) => [`Authorization: Bearer ${ctx.tokenOf("lumiere-revoked")}`]),
    status: 401,
  },
  {
    name: "an expired token",
    send: get(CONTACTS, (ctx) => [`Authorization: Bearer ${ctx.tokenOf("lumiere-expired")}`]),
    status: 401,
  },
  {
    name: "a plan without API access",
    send: get(CONTACTS, (ctx) => [`Authorization: Bearer ${ctx.tokenOf("petitpas-full")}`]),
    status: 403,
  },
  {
    name: "a token without the scope",
    send: get(CONTACTS, (ctx) => [`Authorization: Bearer ${ctx.tokenOf("lumiere-no-scope")}`]),
    status: 403,
  },
  {
    name: "another prefix",
    send: get(CONTACTS, (ctx) => [`Authorization: Bearer xyz_${ctx.token.slice(5)}`]),
    status: 401,
  },
  {
    name: "a trailing space",
    send: get(CONTACTS, (ctx) => [`Authorization: Bearer ${ctx.token} `]),
    status: 200,
  },
  {
    name: "a pre-flight with a hostile origin",
    send: () =>
      req(`OPTIONS ${CONTACTS} HTTP/1.1`, [HOST, "Origin: null", "Access-Control-Request-Method: DELETE"]),
    status: 204,
  },
];

// Run with short timeouts (the suite's server): each waits a fraction of a second for its answer.
const slow: Probe[] = [
  {
    name: "headers that never end",
    send: () => `GET ${CONTACTS} HTTP/1.1\r\n${HOST}\r\nX-Slow: 1\r\n`,
    status: 400,
  },
  { name: "a request line that never ends", send: () => `GET ${CONTACTS}`, status: 400 },
  { name: "a blank line, then nothing", send: () => "\r\n", status: 400 },
  {
    name: "a body shorter than its Content-Length",
    send: (ctx) =>
      req(
        `POST ${CONTACTS} HTTP/1.1`,
        [HOST, bearer(ctx), "Content-Type: application/json", "Content-Length: 100"],
        '{"type":',
      ),
    status: 400,
  },
  {
    name: "a chunked body that stops",
    send: (ctx) =>
      req(
        `POST ${CONTACTS} HTTP/1.1`,
        [HOST, bearer(ctx), "Content-Type: application/json", "Transfer-Encoding: chunked"],
        chunk('{"type":'),
      ),
    status: 400,
  },
];

export const PROBES: Record<ProbeClass, readonly Probe[]> = { framing, json, query, token, slow };
