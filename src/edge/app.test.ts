import request from "supertest";
import { describe, expect } from "vitest";
import { buildApp } from "./app.js";
import { ManualClock } from "../model/clock.js";
import { SteerableClock } from "../store/clock.js";
import type { Contact, Stored } from "../model/records.js";
import { ERROR_STATUS, type ErrorCode } from "../model/errors.js";
import { ReferenceState } from "../store/state.js";
import { Store } from "../store/store.js";
import {
  ENDPOINTS,
  PATHS,
  TEST_NOW,
  describeEndpoint,
  expectData,
  expectError,
  referenceTest,
  validBody,
  type TestReference,
} from "../test-support/reference.js";

const it = referenceTest();

describe("error envelope", () => {
  it("has exactly the six codes of §7, each with its status", () => {
    expect(ERROR_STATUS).toEqual({
      invalid_request: 400,
      unauthorized: 401,
      forbidden: 403,
      not_found: 404,
      rate_limited: 429,
      internal_error: 500,
    });
  });

  const envelopeRows: { why: string; status: number; code: ErrorCode; path: string; label: string | null }[] =
    [
      {
        why: "an invalid limit",
        status: 400,
        code: "invalid_request",
        path: "/api/v1/contacts?limit=0",
        label: "lumiere-full",
      },
      { why: "no token", status: 401, code: "unauthorized", path: "/api/v1/contacts", label: null },
      {
        why: "a token without the scope",
        status: 403,
        code: "forbidden",
        path: "/api/v1/contacts",
        label: "lumiere-products-read",
      },
      {
        why: "an unknown path",
        status: 404,
        code: "not_found",
        path: "/api/v1/nothing",
        label: "lumiere-full",
      },
    ];
  // 429 and 500 have their own tests (rate-limit.http.test.ts, "internal errors" below).
  it.for(envelopeRows)(
    "answers $why with $status $code in the envelope",
    async ({ status, code, path, label }, { ref }) => {
      const req = request(ref.app).get(path);
      expectError(await (label === null ? req : req.set(ref.auth(label))), status, code);
    },
  );

  it("answers JSON with the media type application/json, charset utf-8, on success and on error", async ({
    ref,
  }) => {
    const ok = await request(ref.app).get("/api/v1/contacts").set(ref.auth("lumiere-full"));
    const failed = await request(ref.app).get("/api/v1/contacts");
    for (const res of [ok, failed]) {
      expect(res.headers["content-type"]).toBe("application/json; charset=utf-8");
    }
  });

  it("sends no x-powered-by header", async ({ ref }) => {
    const res = await request(ref.app).get("/api/v1/contacts").set(ref.auth("lumiere-full"));
    expect(res.headers["x-powered-by"]).toBeUndefined();
  });

  it("sends no ETag", async ({ ref }) => {
    const res = await request(ref.app).get("/api/v1/contacts").set(ref.auth("lumiere-full"));
    expect(res.headers.etag).toBeUndefined();
  });

  // 304 is not an answer §4 lists, and a client that never got an ETag has no cached body to reuse.
  it.for(["*", '"abc"', 'W/"abc"'])(
    "answers a GET with If-None-Match: %s with 200 and the list, never 304",
    async (tag, { ref }) => {
      const res = await request(ref.app)
        .get("/api/v1/contacts")
        .set(ref.auth("lumiere-full"))
        .set("If-None-Match", tag);
      expectData(res, 200);
    },
  );

  it("answers a GET with If-Modified-Since with 200 and the list, never 304", async ({ ref }) => {
    const res = await request(ref.app)
      .get("/api/v1/contacts")
      .set(ref.auth("lumiere-full"))
      .set("If-Modified-Since", new Date("2099-01-01").toUTCString());
    expectData(res, 200);
  });
});

describe("paths and methods without an endpoint", () => {
  const full = (ref: TestReference) => ref.auth("lumiere-full");

  // "/" is the pages' landing page (src/doors/pages/door.test.ts).
  it.for([
    "/index.html",
    "/api",
    "/api/v1",
    "/api/v1/nothing",
    "/api/v2/contacts",
    "/api/v1/contacts/con_4kMbMBrn0VJnqsQS",
    "/api/v1/accounts",
    "/api/v1/tokens",
  ])("answers GET %s with 404 not_found", async (path, { ref }) => {
    expectError(await request(ref.app).get(path).set(full(ref)), 404, "not_found");
  });

  const otherMethods = PATHS.flatMap((path) =>
    (["put", "patch", "delete"] as const).map((method) => ({ method, path })),
  );
  it.for(otherMethods)("answers $method $path with 404 not_found", async ({ method, path }, { ref }) => {
    const res = await request(ref.app)[method](path).set(full(ref)).send({ type: "CLIENT", name: "x" });
    expectError(res, 404, "not_found");
  });

  it.for(["/api/v1/expenses", "/api/v1/invoices"])(
    "answers POST %s (read-only) with 404",
    async (path, { ref }) => {
      const res = await request(ref.app).post(path).set(full(ref)).send({ description: "x" });
      expectError(res, 404, "not_found");
    },
  );

  it.for(PATHS)("answers HEAD %s with 404 rather than the GET's headers", async (path, { ref }) => {
    const res = await request(ref.app).head(path).set(full(ref));
    expect(res.status).toBe(404);
    expect(res.headers["content-type"]).toMatch(/^application\/json/);
  });

  it.for(PATHS.flatMap((p) => [`${p}/`, p.toUpperCase(), p.replace("/api/v1", "/API/v1"), `${p}//`]))(
    "answers the inexact path %s with 404",
    async (path, { ref }) => {
      expectError(await request(ref.app).get(path).set(full(ref)), 404, "not_found");
    },
  );

  it.for(["/api/v1/invoices", "/api/v1/expenses"])(
    "answers POST %s, announced, with 404 saying it is not yet available",
    async (path, { ref }) => {
      const res = await request(ref.app).post(path).set(full(ref)).send({ contactId: "con_x", lines: [] });
      const error = expectError(res, 404, "not_found");
      expect(error.message).toMatch(/not yet available/i);
    },
  );

  it("answers POST /api/v1/invoices with 404 even to a token holding invoices:write", async ({ ref }) => {
    const res = await request(ref.app)
      .post("/api/v1/invoices")
      .set(ref.auth("lumiere-invoices-write"))
      .send({});
    expect(expectError(res, 404, "not_found").message).toMatch(/not yet available/i);
  });

  it("stores nothing when POST /api/v1/invoices is called", async ({ ref }) => {
    const before = ref.store.listInvoices("org_lumiere", { limit: 1000 }).length;
    await request(ref.app).post("/api/v1/invoices").set(full(ref)).send({ description: "x" });
    expect(ref.store.listInvoices("org_lumiere", { limit: 1000 })).toHaveLength(before);
  });
});

describe("precedence of failures (spec-gaps #26)", () => {
  /** A token of the plan-less organization that lacks a scope, to tell the plan's 403 from the scope's. */
  const planlessReader = (ref: TestReference) =>
    ref.tokens.create({ organizationId: "org_petitpas", name: "reader", scopes: ["contacts:read"] }).token;

  /** A POST of `body` as `type`, with `auth`'s headers. */
  const postAs = (
    ref: TestReference,
    auth: Record<string, string>,
    path: string,
    type: string,
    body: string,
  ) => request(ref.app).post(path).set(auth).set("Content-Type", type).send(body);

  interface Row {
    why: string;
    send: (ref: TestReference) => request.Test;
    status: number;
    code: "unauthorized" | "forbidden" | "invalid_request" | "not_found";
    message?: RegExp;
  }
  const rows: Row[] = [
    {
      why: "no token on an unknown path: 401, not 404",
      send: (ref: TestReference) => request(ref.app).get("/api/v1/nothing"),
      status: 401,
      code: "unauthorized",
    },
    {
      why: "no token with PUT on a known path: 401, not 404",
      send: (ref: TestReference) => request(ref.app).put("/api/v1/contacts"),
      status: 401,
      code: "unauthorized",
    },
    {
      why: "a revoked token on an unknown path: 401",
      send: (ref: TestReference) => request(ref.app).get("/api/v1/nothing").set(ref.auth("lumiere-revoked")),
      status: 401,
      code: "unauthorized",
    },
    {
      why: "no token with a malformed body: 401, not 400",
      send: (ref: TestReference) => postAs(ref, {}, "/api/v1/contacts", "application/json", "{oops"),
      status: 401,
      code: "unauthorized",
    },
    {
      why: "a plan-less token on an unknown path: 403, not 404",
      send: (ref: TestReference) => request(ref.app).get("/api/v1/nothing").set(ref.auth("petitpas-full")),
      status: 403,
      code: "forbidden",
      message: /plan/i,
    },
    {
      why: "a plan-less token with a malformed body: 403, not 400",
      send: (ref: TestReference) =>
        postAs(ref, ref.auth("petitpas-full"), "/api/v1/contacts", "application/json", "{oops"),
      status: 403,
      code: "forbidden",
      message: /plan/i,
    },
    {
      why: "a plan-less token without the scope: the plan's 403 comes first",
      send: (ref: TestReference) =>
        request(ref.app)
          .post("/api/v1/contacts")
          .set("Authorization", `Bearer ${planlessReader(ref)}`)
          .send({ type: "CLIENT", name: "x" }),
      status: 403,
      code: "forbidden",
      message: /plan/i,
    },
    {
      why: "a missing scope with a malformed body: 403, not 400",
      send: (ref: TestReference) =>
        postAs(ref, ref.auth("lumiere-contacts-read"), "/api/v1/contacts", "application/json", "{oops"),
      status: 403,
      code: "forbidden",
      message: /contacts:write/,
    },
    {
      why: "a missing scope with a wrong media type: 403, not 400",
      send: (ref: TestReference) =>
        postAs(ref, ref.auth("lumiere-contacts-read"), "/api/v1/products", "text/plain", "sku"),
      status: 403,
      code: "forbidden",
      message: /products:write/,
    },
    {
      why: "a missing scope with an invalid query: 403, not 400",
      send: (ref: TestReference) =>
        request(ref.app).get("/api/v1/invoices?limit=0&status=nope").set(ref.auth("lumiere-no-scope")),
      status: 403,
      code: "forbidden",
      message: /invoices:read/,
    },
    {
      why: "an invalid query with every scope: 400",
      send: (ref: TestReference) =>
        request(ref.app).get("/api/v1/invoices?limit=0").set(ref.auth("lumiere-full")),
      status: 400,
      code: "invalid_request",
    },
    {
      // No endpoint reads a resource by id, so 400 and 404 never compete on one path: a path without
      // an endpoint has nothing to validate its input against.
      why: "an invalid query on a path without an endpoint: 404",
      send: (ref: TestReference) =>
        request(ref.app).get("/api/v1/nothing?limit=0").set(ref.auth("lumiere-full")),
      status: 404,
      code: "not_found",
    },
    {
      why: "a malformed body on the announced POST /api/v1/invoices: 404",
      send: (ref: TestReference) =>
        postAs(ref, ref.auth("lumiere-full"), "/api/v1/invoices", "application/json", "{oops"),
      status: 404,
      code: "not_found",
    },
  ];

  it.for(rows)("$why", async ({ send, status, code, message }, { ref }) => {
    const error = expectError(await send(ref), status, code);
    if (message !== undefined) expect(error.message).toMatch(message);
  });
});

describe("internal errors", () => {
  const SECRET = "disk on fire near /var/lib/accounting/secret-7f3a";

  class FailingStore extends Store {
    override listContacts(): Stored<Contact>[] {
      throw new Error(SECRET);
    }
  }

  async function failingApp(ref: TestReference) {
    const state = new ReferenceState({
      fixtures: ref.state.fixtures,
      tokenPrefix: ref.tokens.prefix,
      clock: new SteerableClock(new ManualClock(TEST_NOW)),
      rateLimit: { limit: 1000, windowMs: 60_000 },
      store: new FailingStore(),
    });
    const lines: string[] = [];
    const app = buildApp(state, {
      bodyLimitBytes: 100 * 1024,
      log: (line) => lines.push(line),
      controlKey: null,
      allowedHosts: [],
      tryItToken: undefined,
      ids: undefined,
      sandboxes: ref.sandboxes,
    });
    const res = await request(app).get("/api/v1/contacts").set(ref.auth("lumiere-full"));
    return { res, lines };
  }

  it("answers 500 internal_error in the envelope", async ({ ref }) => {
    const { res } = await failingApp(ref);
    expectError(res, 500, "internal_error");
  });

  it("tells the client neither the error's message nor its stack", async ({ ref }) => {
    const { res } = await failingApp(ref);
    expect(res.text).not.toContain(SECRET);
    expect(res.text).not.toContain("secret-7f3a");
    expect(res.text).not.toMatch(/\bat \S+ \(|\.ts:\d+|\.js:\d+|Error:/);
    expect(res.text).not.toContain(" at ");
  });

  it("tells the injected log the message and the stack", async ({ ref }) => {
    const { lines } = await failingApp(ref);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(SECRET);
    expect(lines[0]).toMatch(/\n\s+at /);
  });

  it("keeps serving after an internal error", async ({ ref }) => {
    const { res } = await failingApp(ref);
    expect(res.status).toBe(500);
    const after = await request(ref.app).get("/api/v1/products").set(ref.auth("lumiere-full"));
    expectData(after, 200);
  });
});

describe("successful answers", () => {
  it.for(ENDPOINTS)("answers $method $path with the data envelope", async (endpoint, { ref }) => {
    const body = validBody(endpoint);
    const req = request(ref.app)[endpoint.method](endpoint.path).set(ref.auth("lumiere-full"));
    const res = await (body === undefined ? req : req.send(body));
    const data = expectData(res, endpoint.method === "get" ? 200 : 201);
    expect(Array.isArray(data), describeEndpoint(endpoint)).toBe(endpoint.method === "get");
  });
});
