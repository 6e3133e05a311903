import request from "supertest";
import { describe, expect } from "vitest";
import { corsResponseHeaders } from "../../http/cors.js";
import {
  PATHS,
  expectError,
  referenceTest,
  testReference,
  type TestReference,
} from "../../test-support/reference.js";

const ORIGIN = "https://app.example.com";
const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];

const it = referenceTest();

/** A header's comma-separated list, compared case-insensitively as HTTP does for these names. */
const list = (value: unknown): string[] =>
  typeof value === "string" ? value.split(",").map((s) => s.trim().toLowerCase()) : [];

function preflight(ref: TestReference, path: string, method = "POST") {
  return request(ref.app)
    .options(path)
    .set("Origin", ORIGIN)
    .set("Access-Control-Request-Method", method)
    .set("Access-Control-Request-Headers", "authorization, content-type");
}

describe("pre-flight requests (§4 CORS)", () => {
  // Every path of the API door, endpoint or not; paths outside /api belong to other doors.
  const paths = [...PATHS, "/api/v1/invoices", "/api/v1/nothing", "/api/v2/contacts", "/api"];
  const cases = paths.flatMap((path) =>
    METHODS.filter((m) => m !== "OPTIONS").map((method) => ({ path, method })),
  );

  it.for(cases)(
    "answers the pre-flight of $method $path without a token with 204",
    async ({ path, method }, { ref }) => {
      const res = await preflight(ref, path, method);
      expect(res.status).toBe(204);
      expect(res.headers["access-control-allow-origin"]).toBe("*");
      expect(list(res.headers["access-control-allow-methods"])).toEqual(
        expect.arrayContaining(METHODS.map((m) => m.toLowerCase())),
      );
      expect(list(res.headers["access-control-allow-headers"])).toEqual(
        expect.arrayContaining(["authorization", "content-type"]),
      );
      // The browser may keep the answer two hours (Chromium's cap): it never changes.
      expect(res.headers["access-control-max-age"]).toBe("7200");
      expect(res.text).toBe("");
    },
  );

  it("answers a pre-flight with a revoked token in the same way, since browsers send none", async ({
    ref,
  }) => {
    const res = await preflight(ref, "/api/v1/contacts").set(ref.auth("lumiere-revoked"));
    expect(res.status).toBe(204);
  });

  it("does not count a pre-flight against any token", async ({ ref }) => {
    const counts = () => ref.manifest.tokens.map((t) => ref.tokens.get(ref.tokenId(t.label))?.requestCount);
    const before = counts();
    await preflight(ref, "/api/v1/contacts").set(ref.auth("lumiere-full"));
    expect(counts()).toEqual(before);
  });

  it("allows any origin, whatever the origin", async ({ ref }) => {
    for (const origin of ["http://localhost:3000", "null", "https://evil.example"]) {
      const res = await preflight(ref, "/api/v1/contacts").set("Origin", origin);
      expect(res.headers["access-control-allow-origin"]).toBe("*");
    }
  });
});

describe("CORS headers on actual responses (spec-gaps #22)", () => {
  const limited = async () => {
    const r = await testReference({ rateLimit: { limit: 1, windowMs: 60_000 } });
    await request(r.app).get("/api/v1/contacts").set(r.auth("lumiere-full"));
    return request(r.app).get("/api/v1/contacts").set(r.auth("lumiere-full"));
  };

  it.for([
    {
      status: 200,
      send: (ref: TestReference) => request(ref.app).get("/api/v1/contacts").set(ref.auth("lumiere-full")),
    },
    {
      status: 201,
      send: (ref: TestReference) =>
        request(ref.app)
          .post("/api/v1/contacts")
          .set(ref.auth("lumiere-full"))
          .send({ type: "CLIENT", name: "x" }),
    },
    {
      status: 400,
      send: (ref: TestReference) =>
        request(ref.app).get("/api/v1/contacts?limit=0").set(ref.auth("lumiere-full")),
    },
    { status: 401, send: (ref: TestReference) => request(ref.app).get("/api/v1/contacts") },
    {
      status: 403,
      send: (ref: TestReference) =>
        request(ref.app).get("/api/v1/contacts").set(ref.auth("lumiere-no-scope")),
    },
    {
      status: 404,
      send: (ref: TestReference) => request(ref.app).get("/api/v1/nothing").set(ref.auth("lumiere-full")),
    },
    { status: 429, send: () => limited() },
  ])("carries Access-Control-Allow-Origin on a $status", async ({ status, send }, { ref }) => {
    const res = await send(ref);
    expect(res.status).toBe(status);
    expect(res.headers["access-control-allow-origin"]).toBe("*");
  });

  it("carries Access-Control-Allow-Origin on a cross-origin request with an Origin header", async ({
    ref,
  }) => {
    const res = await request(ref.app).get("/api/v1/contacts").set("Origin", ORIGIN);
    expectError(res, 401, "unauthorized");
    expect(res.headers["access-control-allow-origin"]).toBe("*");
  });

  // Without exposure a browser script cannot read why it was refused or when to retry.
  it("exposes the rate-limit, Retry-After and WWW-Authenticate headers to scripts", async ({ ref }) => {
    const res = await request(ref.app).get("/api/v1/contacts").set("Origin", ORIGIN);
    expect(list(res.headers["access-control-expose-headers"])).toEqual(
      expect.arrayContaining(["ratelimit", "ratelimit-policy", "retry-after", "www-authenticate"]),
    );
  });
});

describe("corsResponseHeaders", () => {
  // Answers written outside Express (src/edge/server.ts) must look like the middleware's to a browser.
  it("names exactly the headers and values the middleware writes on an actual response", async ({ ref }) => {
    const res = await request(ref.app).get("/api/v1/contacts").set("Origin", ORIGIN);
    for (const [name, value] of Object.entries(corsResponseHeaders())) {
      expect(res.headers[name.toLowerCase()]).toBe(value);
    }
    const written = Object.keys(res.headers).filter((h) => h.startsWith("access-control-"));
    expect(written.sort()).toEqual(
      Object.keys(corsResponseHeaders())
        .map((h) => h.toLowerCase())
        .sort(),
    );
  });
});
