import { createServer as createHttpServer, request as httpRequest } from "node:http";
import request from "supertest";
import { describe, expect } from "vitest";
import { DEFAULT_BODY_LIMIT_BYTES } from "../../entry/reference.js";
import { CONTACTS, VALID, bodyTest, json, type BodyHarness } from "../../test-support/bodies.js";
import { exchange, expectEnvelope, only, rawRequest } from "../../test-support/raw-http.js";
import { close, listen } from "../../test-support/serve.js";
import { expectData } from "../../test-support/reference.js";

// How large a body may be (spec-gaps #15), how one too large is refused without being read, and a
// body read before the app.

const it = bodyTest;

describe("size cap (spec-gaps #15)", () => {
  /** A valid body padded with JSON whitespace to exactly `size` bytes. */
  const padded = (size: number) => VALID + " ".repeat(size - Buffer.byteLength(VALID));

  it("caps bodies at 100 kB", () => {
    expect(DEFAULT_BODY_LIMIT_BYTES).toBe(100 * 1024);
  });

  it("accepts a body of exactly the cap", async ({ h }) => {
    expectData(await h.post(padded(DEFAULT_BODY_LIMIT_BYTES), json), 201);
  });

  it("refuses a body one byte over the cap with 400 invalid_request", async ({ h }) => {
    await h.expectRefused(await h.post(padded(DEFAULT_BODY_LIMIT_BYTES + 1), json));
  });

  it("refuses a body far over the cap and still answers the next request", async ({ h, serveBare }) => {
    const base = `http://127.0.0.1:${await serveBare(h.ref.app)}`;
    const huge = `{"type":"CLIENT","name":"${"x".repeat(5 * DEFAULT_BODY_LIMIT_BYTES)}"}`;
    const refused = await request(base).post(CONTACTS).set(h.ref.auth("lumiere-full")).set(json).send(huge);
    await h.expectRefused(refused);
    const next = await request(base).post(CONTACTS).set(h.ref.auth("lumiere-full")).set(json).send(VALID);
    expectData(next, 201);
  });

  it("refuses a chunked body without Content-Length once it passes the cap", async ({ h, serveBare }) => {
    const port = await serveBare(h.ref.app);
    const answer = await new Promise<{ status: number; body: unknown }>((resolve, reject) => {
      const req = httpRequest(
        {
          host: "127.0.0.1",
          port,
          method: "POST",
          path: CONTACTS,
          headers: { ...h.ref.auth("lumiere-full"), ...json, "Transfer-Encoding": "chunked" },
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
    expect(h.ref.store.countContacts("org_lumiere")).toBe(h.contactsBefore);
  });
});

/** The reference behind its own node:http server, whose port each test of the block takes. */
const served = it.extend("port", ({ h, serve }) => serve(h.ref.app));

describe("oversized bodies are refused without being read (issue 7, point 7)", () => {
  const head = (h: BodyHarness, framing: string) =>
    rawRequest(`POST ${CONTACTS} HTTP/1.1`, [
      "Host: 127.0.0.1",
      `Authorization: ${h.ref.auth("lumiere-full").Authorization}`,
      "Content-Type: application/json",
      framing,
    ]);

  // Each client below sends less than it announces and then waits: only an answer given before
  // the body is read can reach it.
  served(
    "answers a declared Content-Length over the cap at once, from the header alone",
    async ({ h, port }) => {
      const result = await exchange(port, [head(h, "Content-Length: 50000000"), '{"type":"CLIENT","name":"']);
      const res = only(result);
      const error = expectEnvelope(res, 400, "invalid_request");
      expect(error.message).toMatch(String(DEFAULT_BODY_LIMIT_BYTES));
      expect(res.headers.get("connection")).toEqual(["close"]);
      expect(h.ref.store.countContacts("org_lumiere")).toBe(h.contactsBefore);
    },
  );

  served("answers a chunked body that never ends as soon as it passes the cap", async ({ h, port }) => {
    const chunk = (text: string) => `${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n`;
    const filler = Array.from({ length: Math.ceil(DEFAULT_BODY_LIMIT_BYTES / 8192) + 2 }, () =>
      chunk("x".repeat(8192)),
    );
    const result = await exchange(port, [
      head(h, "Transfer-Encoding: chunked"),
      chunk('{"type":"CLIENT","name":"'),
      ...filler,
    ]);
    const res = only(result);
    expectEnvelope(res, 400, "invalid_request");
    expect(res.headers.get("connection")).toEqual(["close"]);
    expect(h.ref.store.countContacts("org_lumiere")).toBe(h.contactsBefore);
  });

  served(
    "closes the connection after any refusal sent before the body was read, rather than drain it",
    async ({ port }) => {
      const bytes = rawRequest(`POST ${CONTACTS} HTTP/1.1`, [
        "Host: 127.0.0.1",
        "Content-Type: application/json",
        "Content-Length: 50000000",
      ]);
      const res = only(await exchange(port, bytes));
      expectEnvelope(res, 401, "unauthorized");
      expect(res.headers.get("connection")).toEqual(["close"]);
    },
  );

  served("keeps the connection open after refusing requests that have no body", async ({ port }) => {
    const bare = rawRequest(`GET ${CONTACTS} HTTP/1.1`, ["Host: 127.0.0.1"]);
    const result = await exchange(port, [bare, bare], { responses: 2 });
    expect(result.responses.map((r) => [r.status, r.headers.get("connection")?.[0]])).toEqual([
      [401, "keep-alive"],
      [401, "keep-alive"],
    ]);
  });

  served("keeps the connection open after a body it read in full", async ({ h, port }) => {
    const bad = "{";
    const good = VALID;
    const request = (body: string) =>
      rawRequest(
        `POST ${CONTACTS} HTTP/1.1`,
        [
          "Host: 127.0.0.1",
          `Authorization: ${h.ref.auth("lumiere-full").Authorization}`,
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
  it("is taken from req.body once the request has been read to its end, as body-parser took it", async ({
    h,
  }) => {
    const wrapper = createHttpServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8").replace("Before", "Rewritten");
        Object.assign(req, { body: Buffer.from(text) });
        h.ref.app(req, res);
      });
    });
    const port = await listen(wrapper);
    try {
      const res = await request(`http://127.0.0.1:${port}`)
        .post(CONTACTS)
        .set(h.ref.auth("lumiere-full"))
        .send({ type: "CLIENT", name: "Before" });
      expect(expectData(res, 201)).toMatchObject({ name: "Rewritten" });
    } finally {
      await close(wrapper);
    }
  });
});
