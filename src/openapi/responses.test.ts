import express from "express";
import request from "supertest";
import { describe, expect, it } from "vitest";

/**
 * The setup file (src/test-support/openapi-responses.setup.ts) judges every supertest response of
 * the tests under src/ by openapi.json. These servers answer what the document does not describe,
 * and the request must fail however little the test itself asserts.
 */
function serving(status: number, body: unknown, headers: Record<string, string> = {}) {
  const app = express();
  app.use((_req, res) => {
    res.set({
      RateLimit: '"per-token"; r=9; t=60',
      "RateLimit-Policy": '"per-token"; q=10; w=60',
      ...headers,
    });
    res.status(status).json(body);
  });
  return app;
}

const contact = {
  id: "con_1",
  type: "CLIENT",
  name: "A",
  email: null,
  phone: null,
  address: null,
  taxNumberTPS: null,
  taxNumberTVQ: null,
  createdAt: "2026-11-20T12:00:00.000Z",
  updatedAt: "2026-11-20T12:00:00.000Z",
};

describe("responses the HTTP tests receive are judged by openapi.json", () => {
  it("lets a response through that the document describes", async () => {
    const res = await request(serving(200, { data: [contact] })).get("/api/v1/contacts");
    expect(res.status).toBe(200);
  });

  it.each([
    ["a field of the wrong type", 200, { data: [{ ...contact, email: 5 }] }, {}, "body"],
    ["a field §2 does not list", 200, { data: [{ ...contact, extra: 1 }] }, {}, "body"],
    [
      "a timestamp without milliseconds",
      200,
      { data: [{ ...contact, createdAt: "2026-11-20T12:00:00Z" }] },
      {},
      "body",
    ],
    [
      "a status the operation does not declare",
      404,
      { error: { code: "not_found", message: "x" } },
      {},
      "status 404",
    ],
    [
      "an error code that is not the status's",
      400,
      { error: { code: "forbidden", message: "x" } },
      {},
      "body",
    ],
    ["a 429 without Retry-After", 429, { error: { code: "rate_limited", message: "x" } }, {}, "Retry-After"],
    [
      "a 401 with another challenge",
      401,
      { error: { code: "unauthorized", message: "x" } },
      { "WWW-Authenticate": "Basic" },
      "WWW-Authenticate",
    ],
  ] as const)("fails on %s", async (_what, status, body, headers, problem) => {
    await expect(request(serving(status, body, headers)).get("/api/v1/contacts")).rejects.toThrow(problem);
  });

  it("fails on a response without the rate-limit headers", async () => {
    const app = express().use((_req, res) => res.status(200).json({ data: [] }));
    await expect(request(app).get("/api/v1/contacts")).rejects.toThrow("RateLimit");
  });

  it("judges a path outside the document by the error response of its status", async () => {
    await expect(request(serving(404, { data: [] })).get("/api/v1/nothing")).rejects.toThrow("body");
    const res = await request(serving(404, { error: { code: "not_found", message: "No endpoint" } })).get(
      "/api/v1/nothing",
    );
    expect(res.status).toBe(404);
  });
});
