import { kitSpec } from "../spec/kit-spec.js";
import { describe, expect, it } from "vitest";
import { CheckFailure, type HttpExchange } from "../types.js";
import {
  charset,
  expectAllowsOrigin,
  expectDataArray,
  expectDataObject,
  expectError,
  expectErrorEnvelope,
  expectJsonContentType,
  expectList,
  expectNot5xx,
  expectRejected,
  expectStatus,
  headerList,
  mediaType,
  outcome,
  readErrorEnvelope,
  requestLine,
  statusAndCode,
} from "./assert.js";

/** An exchange as the client would record it, from a status and a body. */
function exchange(
  status: number,
  body: unknown,
  headers: Record<string, string> = { "content-type": "application/json; charset=utf-8" },
): HttpExchange {
  const text = typeof body === "string" ? body : JSON.stringify(body);
  let json: unknown;
  try {
    json = JSON.parse(text) as unknown;
  } catch {
    json = undefined;
  }
  return {
    request: { method: "GET", path: "/api/v1/contacts", query: { limit: "5" } },
    status,
    headers,
    text,
    json,
    curl: "curl -sS -i http://localhost/api/v1/contacts?limit=5",
  };
}

/** The CheckFailure `run` throws; fails the test when it throws nothing or something else. */
function failureOf(run: () => unknown): CheckFailure {
  try {
    run();
  } catch (error) {
    if (error instanceof CheckFailure) return error;
    throw error;
  }
  throw new Error("expected a CheckFailure, nothing was thrown");
}

describe("expectStatus", () => {
  it("passes on the status or one of the statuses", () => {
    expectStatus(exchange(200, { data: [] }), 200);
    expectStatus(exchange(201, { data: {} }), [200, 201]);
  });

  it("fails with the rule, the expected statuses, the answer and the exchange", () => {
    const ex = exchange(500, { error: { code: "internal_error", message: "boom" } });
    const f = failureOf(() => expectStatus(ex, [200, 201], "creation must succeed"));
    expect(f.message).toContain("creation must succeed");
    expect(f.message).toContain("GET /api/v1/contacts?limit=5 answered 500");
    expect(f.expected).toBe("status 200 or 201");
    expect(f.actual).toContain("internal_error");
    expect(f.exchange).toBe(ex);
  });
});

describe("expectJsonContentType", () => {
  it("takes application/json with or without a UTF-8 charset", () => {
    expectJsonContentType(exchange(200, { data: [] }));
    expectJsonContentType(exchange(200, { data: [] }, { "content-type": "application/json" }));
    expectJsonContentType(exchange(200, { data: [] }, { "content-type": "Application/JSON; charset=UTF-8" }));
  });

  it("refuses another media type, another charset, or a body that is not JSON", () => {
    failureOf(() => expectJsonContentType(exchange(200, { data: [] }, { "content-type": "text/html" })));
    failureOf(() => expectJsonContentType(exchange(200, { data: [] }, {})));
    failureOf(() =>
      expectJsonContentType(
        exchange(200, { data: [] }, { "content-type": "application/json; charset=latin1" }),
      ),
    );
    failureOf(() => expectJsonContentType(exchange(200, "<html></html>")));
  });

  it("reads the media type and charset", () => {
    const ex = exchange(200, {}, { "content-type": 'application/json; charset="UTF-8"' });
    expect(mediaType(ex)).toBe("application/json");
    expect(charset(ex)).toBe("utf-8");
    expect(charset(exchange(200, {}, { "content-type": "application/json" }))).toBeUndefined();
  });
});

describe("the success envelope", () => {
  it("returns data: an array for a list, an object for a creation", () => {
    expect(expectDataArray(exchange(200, { data: [1] }))).toEqual([1]);
    expect(expectDataObject(exchange(201, { data: { id: "c1" } }))).toEqual({ id: "c1" });
    expect(expectList(exchange(200, { data: [{ id: "a" }] }))).toEqual([{ id: "a" }]);
  });

  it("refuses a body with another key beside data, without data, or with data of the wrong kind", () => {
    failureOf(() => expectDataArray(exchange(200, { data: [], meta: {} })));
    failureOf(() => expectDataArray(exchange(200, [])));
    failureOf(() => expectDataArray(exchange(200, { data: {} })));
    failureOf(() => expectDataObject(exchange(201, { data: [] })));
    failureOf(() => expectDataObject(exchange(201, { data: null })));
    failureOf(() => expectList(exchange(200, { data: [1, 2] })));
    failureOf(() => expectList(exchange(201, { data: [] })));
  });
});

describe("the error envelope", () => {
  const error = (e: unknown) => exchange(400, { error: e });

  it("reads code, message and details", () => {
    const read = expectErrorEnvelope(
      error({ code: "invalid_request", message: "bad", details: { name: ["x"] } }),
    );
    expect(read).toEqual({ code: "invalid_request", message: "bad", details: { name: ["x"] } });
    expect(
      expectRejected(kitSpec(), error({ code: "invalid_request", message: "bad" })).details,
    ).toBeUndefined();
  });

  it("takes absent and null details alike", () => {
    expect(readErrorEnvelope({ error: { code: "x", message: "y", details: null } })).toEqual({
      code: "x",
      message: "y",
      details: undefined,
    });
  });

  it("refuses a missing code or message, details that are not an object, and another code", () => {
    failureOf(() => expectErrorEnvelope(error({ message: "bad" })));
    failureOf(() => expectErrorEnvelope(error({ code: 400, message: "bad" })));
    failureOf(() => expectErrorEnvelope(error({ code: "invalid_request" })));
    failureOf(() => expectErrorEnvelope(error({ code: "invalid_request", message: "m", details: ["name"] })));
    failureOf(() => expectErrorEnvelope(error({ code: "invalid_request", message: "m", details: "name" })));
    failureOf(() => expectErrorEnvelope(exchange(400, { code: "invalid_request", message: "m" })));
    const f = failureOf(() =>
      expectErrorEnvelope(error({ code: "bad_request", message: "m" }), "invalid_request"),
    );
    expect(f.expected).toBe('error.code "invalid_request"');
    expect(f.actual).toBe('error.code "bad_request"');
  });

  it("expectRejected wants both 400 and invalid_request", () => {
    failureOf(() =>
      expectRejected(kitSpec(), exchange(422, { error: { code: "invalid_request", message: "m" } })),
    );
    failureOf(() =>
      expectRejected(kitSpec(), exchange(400, { error: { code: "validation", message: "m" } })),
    );
  });
});

describe("small readers", () => {
  it("expectNot5xx fails on a server error only", () => {
    expectNot5xx(exchange(404, { error: { code: "not_found", message: "m" } }));
    failureOf(() => expectNot5xx(exchange(502, "Bad Gateway", { "content-type": "text/plain" })));
  });

  it("names answers for observations", () => {
    expect(statusAndCode(exchange(404, { error: { code: "not_found", message: "m" } }))).toBe(
      "404 not_found",
    );
    expect(statusAndCode(exchange(200, { data: [] }))).toBe("200");
    expect(outcome(exchange(201, { data: {} }))).toBe("accepted (201)");
    expect(outcome(exchange(400, { error: { code: "invalid_request", message: "m" } }))).toBe(
      "refused (400 invalid_request)",
    );
  });

  it("renders a request line with repeated parameters", () => {
    expect(requestLine({ method: "GET", path: "/p", query: { limit: ["1", "2"], type: "BOTH" } })).toBe(
      "GET /p?limit=1&limit=2&type=BOTH",
    );
  });

  it("reads a comma-separated header as lower-cased tokens", () => {
    const ex = exchange(204, "", { "access-control-allow-methods": "GET, Post,PUT" });
    expect([...headerList(ex, "Access-Control-Allow-Methods")]).toEqual(["get", "post", "put"]);
  });
});

describe("what a failure says about itself", () => {
  const errorEnvelope = (body: unknown, status = 401) =>
    failureOf(() => expectError(exchange(status, body), status, "unauthorized"));

  it("names the foundation rule an answer broke, apart from the check's own", () => {
    expect(errorEnvelope({ message: "no" }).cause).toBe("envelope.error-shape");
    expect(errorEnvelope({ error: { code: "unauthorized", message: "m", details: ["x"] } }).cause).toBe(
      "envelope.details-shape",
    );
    expect(errorEnvelope({ error: { code: "forbidden", message: "m" } }).cause).toBe("envelope.error-code");
    expect(failureOf(() => expectStatus(exchange(200, { data: [] }), 401)).cause).toBe("rule");
    expect(
      failureOf(() => expectStatus(exchange(503, "down", { "content-type": "text/plain" }), 200)).cause,
    ).toBe("response.no-5xx");
    expect(
      failureOf(() => expectJsonContentType(exchange(200, "<p>", { "content-type": "text/html" }))).cause,
    ).toBe("response.json");
    expect(failureOf(() => expectDataArray(exchange(200, { data: {} }))).cause).toBe("envelope.list-data");
  });

  it("keys the failure by what broke and the request's route, never by the URL or the body", () => {
    const answer = (path: string, body: unknown): HttpExchange => ({
      ...exchange(401, body),
      request: { method: "GET", path },
    });
    const one = failureOf(() =>
      expectError(
        answer("/api/v1/contacts/cfk-1-aaaa", { error: { message: "cfk-1-aaaa" } }),
        401,
        "unauthorized",
      ),
    );
    const two = failureOf(() =>
      expectError(
        answer("/api/v1/contacts/cfk-9-zzzz", { error: { message: "cfk-9-zzzz" } }),
        401,
        "unauthorized",
      ),
    );
    expect(one.key).toBe("code not a string | GET /api/v1/contacts/*");
    expect(two.key).toBe(one.key);
  });

  it("judges CORS on any answer: the origin allowed, keyed without the origin's value", () => {
    const origin = "https://cfk-1-aaaa.conformance.example";
    expectAllowsOrigin(exchange(200, { data: [] }, { "access-control-allow-origin": "*" }), origin, "r");
    expectAllowsOrigin(exchange(200, { data: [] }, { "access-control-allow-origin": origin }), origin, "r");
    const f = failureOf(() =>
      expectAllowsOrigin(
        exchange(200, { data: [] }, { "access-control-allow-origin": `${origin}/` }),
        origin,
        "r",
      ),
    );
    expect(f).toMatchObject({
      cause: "cors.allow-origin",
      key: "another allow-origin | GET /api/v1/contacts",
    });
  });
});
