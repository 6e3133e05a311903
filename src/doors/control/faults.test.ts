import request from "supertest";
import { describe, expect, it } from "vitest";
import { exchange, rawRequest } from "../../test-support/raw-http.js";
import { serverTest, type Serve } from "../../test-support/serve.js";
import { expectData, expectError, expectInvalid, type TestReference } from "../../test-support/reference.js";
import { api, controlledReference, createContact, ctl } from "../../test-support/control.js";

// Faults beyond a count: held for a duration or until cleared, refused when they could never fire,
// and the failures beyond the spec (a gateway's pages, an HTML page, a body cut short).

// Beyond-spec answers are tested with fetch and raw sockets, not supertest, whose responses the test
// setup holds to openapi.json: these answers are, on purpose, ones the document does not describe.

const addFault = (ref: TestReference, body: object) => ctl(ref).post("/faults", body);
const contacts = (ref: TestReference) =>
  request(ref.app).get("/api/v1/contacts?limit=1").set(ref.auth("lumiere-full"));

describe("how long a fault holds", () => {
  it("for a duration: every matching request until that much time has passed on the reference's clock", async () => {
    const ref = await controlledReference();
    const res = await addFault(ref, { path: "/api/v1/contacts", status: 500, duration: "PT30S" });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      times: null,
      remaining: null,
      until: "2026-11-20T12:00:30.000Z",
      untilCleared: false,
    });
    for (let i = 0; i < 5; i++) expectError(await contacts(ref), 500, "internal_error");
    ref.clock.advance(29_999);
    expectError(await contacts(ref), 500, "internal_error");
    expect(ref.control.faults()[0]?.taken).toBe(6);
    ref.clock.advance(1);
    expectData(await contacts(ref), 200);
    expect(ref.control.faults()).toEqual([]);
  });

  it("until cleared: every matching request, however many, until DELETE /__control/faults/{id}", async () => {
    const ref = await controlledReference();
    const fault = ref.control.addFault({ path: "/api/v1/contacts", status: 500, untilCleared: true });
    ref.clock.advance(365 * 86_400_000);
    for (let i = 0; i < 20; i++) expectError(await contacts(ref), 500, "internal_error");
    expect(ref.control.faults()).toMatchObject([{ id: fault.id, untilCleared: true, taken: 20 }]);
    const cleared = await ctl(ref).delete(`/faults/${fault.id}`);
    expect(cleared.body).toEqual({ cleared: 1 });
    expectData(await contacts(ref), 200);
    expectError(await ctl(ref).delete(`/faults/${fault.id}`), 404, "not_found");
  });

  it("for a count by default: one request, then gone; `taken` says how many it took", async () => {
    const ref = await controlledReference();
    ref.control.addFault({ status: 500 });
    expect(ref.control.faults()).toMatchObject([{ times: 1, remaining: 1, taken: 0 }]);
    expectError(await contacts(ref), 500, "internal_error");
    expectData(await contacts(ref), 200);
  });

  it.each([
    [{ status: 500, times: 2, duration: "PT1S" }, "times", "a count and a duration"],
    [{ status: 500, times: 2, untilCleared: true }, "times", "a count and until cleared"],
    [{ status: 500, duration: "PT0S" }, "duration", "a zero duration"],
    [{ status: 500, duration: "P1M" }, "duration", "a month"],
    [{ status: 500, untilCleared: false }, "untilCleared", "untilCleared false"],
  ])("refuses %j with 400 naming the field (%s: %s)", async (body, field, _why) => {
    const ref = await controlledReference();
    expectInvalid(await addFault(ref, body), field);
    expect(ref.control.faults()).toEqual([]);
  });
});

describe("a fault aimed where no request can go is refused (400 naming the field)", () => {
  it.each([
    [{ path: "/api/v1/contacts*", status: 500 }, "path", "a pattern"],
    [{ path: "/api/v1/*", status: 500 }, "path", "a wildcard"],
    [{ path: "/api/v1/nowhere", status: 500 }, "path", "a path that is no endpoint"],
    [{ path: "/api/v1/contacts/", status: 500 }, "path", "a trailing slash"],
    [{ path: "/api/v1/Contacts", status: 500 }, "path", "another case"],
    [{ path: "/api/v1", status: 500 }, "path", "the base path"],
    [{ method: "POST", path: "/api/v1/invoices", status: 500 }, "method", "an announced endpoint"],
    [{ method: "POST", path: "/api/v1/expenses", status: 500 }, "method", "a method the path has not"],
    [{ method: "PUT", status: 500 }, "method", "a method no endpoint has"],
    [{ method: "OPTIONS", status: 500 }, "method", "a pre-flight, answered before faults"],
    [{ method: "HEAD", status: 500 }, "method", "HEAD"],
  ])("%j (%s: %s)", async (body, field, _why) => {
    const ref = await controlledReference();
    const details = expectInvalid(await addFault(ref, body), field);
    if (field === "path") expect(details.path?.[0]).toContain("/api/v1/contacts, /api/v1/products");
    expect(ref.control.faults()).toEqual([]);
  });

  it("accepts each of §4's six endpoints, and a path alone for both its methods", async () => {
    const ref = await controlledReference();
    for (const [method, path] of [
      ["GET", "/api/v1/contacts"],
      ["POST", "/api/v1/contacts"],
      ["GET", "/api/v1/products"],
      ["POST", "/api/v1/products"],
      ["GET", "/api/v1/invoices"],
      ["GET", "/api/v1/expenses"],
    ]) {
      expect((await addFault(ref, { method, path, status: 500 })).status).toBe(201);
    }
    expect((await addFault(ref, { path: "/api/v1/contacts", status: 500 })).status).toBe(201);
    expect(ref.control.faults()).toHaveLength(7);
  });
});

const served = serverTest;

describe("failures beyond the spec, seen by a real client", () => {
  async function start(serve: Serve) {
    const ref = await controlledReference();
    const port = await serve(ref.app);
    const get = () =>
      fetch(`http://127.0.0.1:${port}/api/v1/contacts?limit=2`, { headers: ref.auth("lumiere-full") });
    return { ref, port, get };
  }

  served.for([
    ["bad_gateway", 502, "502 Bad Gateway"],
    ["service_unavailable", 503, "503 Service Temporarily Unavailable"],
    ["gateway_timeout", 504, "504 Gateway Time-out"],
    ["html_page", 200, "Sign in"],
  ])(
    "%s answers %i with an HTML page, marked as injected, once",
    async ([kind, status, title], { serve }) => {
      const { ref, get } = await start(serve);
      const fault = ref.control.addFault({ beyondSpec: kind as "bad_gateway" });
      expect(fault.beyondSpec).toBe(kind);
      const res = await get();
      expect(res.status).toBe(status);
      expect(res.headers.get("content-type")).toBe("text/html");
      // Readable by the page that asked, as the API's own answers are.
      expect(res.headers.get("access-control-allow-origin")).toBe("*");
      const html = await res.text();
      expect(html).toContain(`<title>${title}</title>`);
      expect(html).toContain(`injected fault "${kind}", beyond the spec`);
      expect(() => JSON.parse(html) as unknown).toThrow(SyntaxError);
      expect((await get()).status).toBe(200);
      expect(ref.control.journal()[1]).toMatchObject({ status, fault: fault.id });
    },
  );

  served(
    "truncated_body sends the status, the headers and the whole length, then half the body",
    async ({ serve }) => {
      const { ref, port } = await start(serve);
      ref.control.addFault({ beyondSpec: "truncated_body", path: "/api/v1/contacts" });
      const { responses, raw, closedByServer } = await exchange(
        port,
        rawRequest("GET /api/v1/contacts?limit=2 HTTP/1.1", [
          "Host: 127.0.0.1",
          `Authorization: ${ref.auth("lumiere-full").Authorization}`,
        ]),
      );
      expect(closedByServer).toBe(true);
      expect(responses).toEqual([]); // never complete
      const [head = "", body = ""] = raw.split("\r\n\r\n");
      expect(head).toMatch(/^HTTP\/1\.1 200 OK/);
      const length = Number(/content-length: (\d+)/i.exec(head)?.[1]);
      expect(Buffer.byteLength(body)).toBe(Math.floor(length / 2));
      expect(body.startsWith('{"data":[')).toBe(true);
      // The next request is answered whole.
      const whole = await fetch(`http://127.0.0.1:${port}/api/v1/contacts?limit=2`, {
        headers: ref.auth("lumiere-full"),
      });
      expect(Buffer.byteLength(await whole.text())).toBe(length);
    },
  );

  served("truncated_body cuts an error answer too, and a fetch reading it fails", async ({ serve }) => {
    const { ref, port } = await start(serve);
    ref.control.addFault({ beyondSpec: "truncated_body" });
    const res = await fetch(`http://127.0.0.1:${port}/api/v1/contacts`);
    expect(res.status).toBe(401);
    await expect(res.text()).rejects.toThrow();
  });

  served.each([
    [{ beyondSpec: "teapot" }, "beyondSpec", "an unknown failure"],
    [{ beyondSpec: "bad_gateway", status: 500 }, "beyondSpec", "with an error of §7"],
    [{ beyondSpec: "bad_gateway", drop: true }, "beyondSpec", "with a drop"],
    [{ beyondSpec: "bad_gateway", message: "x" }, "message", "with a message"],
  ])("refuses %j (%s: %s)", async (body, field, _why) => {
    const ref = await controlledReference();
    expectInvalid(await addFault(ref, body), field);
  });

  served("are never armed by default: a fresh reference answers JSON", async ({ serve }) => {
    const { ref, get } = await start(serve);
    expect(ref.control.faults()).toEqual([]);
    const res = await get();
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
  });
});

describe("faults: POST, GET and DELETE /__control/faults", () => {
  served("answer exactly the next N matching requests with the error, and no other request", async () => {
    const ref = await controlledReference();
    const res = await ctl(ref).post("/faults", {
      method: "GET",
      path: "/api/v1/contacts",
      times: 2,
      status: 500,
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ times: 2, remaining: 2, code: "internal_error", status: 500 });
    expectData(await api(ref, "lumiere-full", "/api/v1/products"), 200);
    expectData(await createContact(ref, "lumiere-full", "POST is not matched"), 201);
    for (let i = 0; i < 2; i++) {
      const failed = await api(ref, "lumiere-full");
      expectError(failed, 500, "internal_error");
      expect(failed.headers["access-control-allow-origin"]).toBe("*");
    }
    expectData(await api(ref, "lumiere-full"), 200);
    expect((await ctl(ref).get("/faults")).body).toEqual([]);
  });

  served("aim at one token label or one organization", async () => {
    const ref = await controlledReference();
    ref.control.addFault({ token: "lumiere-contacts-read", code: "forbidden", times: 3 });
    ref.control.addFault({ organization: "org_boreal", status: 500 });
    expectData(await api(ref, "lumiere-full"), 200);
    expectError(await api(ref, "lumiere-contacts-read"), 403, "forbidden");
    expectError(await api(ref, "boreal-full"), 500, "internal_error");
    expectData(await api(ref, "boreal-full"), 200);
    expect(ref.control.faults().map((f) => [f.token, f.remaining])).toEqual([["lumiere-contacts-read", 2]]);
  });

  served("answer a 429 with Retry-After, and a message of one's own", async () => {
    const ref = await controlledReference();
    ref.control.addFault({ code: "rate_limited", retryAfter: 7, message: "Slow down, test" });
    const res = await api(ref, "lumiere-full");
    expect(expectError(res, 429, "rate_limited").message).toBe("Slow down, test");
    expect(res.headers["retry-after"]).toBe("7");
  });

  served("are listed while armed and cleared by DELETE", async () => {
    const ref = await controlledReference();
    ref.control.addFault({ status: 500, times: 4 });
    ref.control.addFault({ delayMs: 10 });
    expect((await ctl(ref).get("/faults")).body).toHaveLength(2);
    expect((await ctl(ref).delete("/faults")).body).toEqual({ cleared: 2 });
    expectData(await api(ref, "lumiere-full"), 200);
  });

  served.each([
    [{}, "status", "no effect given"],
    [{ status: 418 }, "status", "a status outside §7"],
    [{ status: 200 }, "status", "a success"],
    [{ code: "teapot" }, "code", "a code outside §7"],
    [{ status: 500, code: "not_found" }, "code", "a status and a code that disagree"],
    [{ status: 500, drop: true }, "drop", "an error and a drop"],
    [{ path: "/__control/reset", status: 500 }, "path", "a path outside the API"],
    [{ path: "/api/v1/contacts?limit=1", status: 500 }, "path", "a query string"],
    [{ method: "get", status: 500 }, "method", "a lower-case method"],
    [{ times: 0, status: 500 }, "times", "zero times"],
    [{ times: 1.5, status: 500 }, "times", "a fraction"],
    [{ delayMs: -1 }, "delayMs", "a negative delay"],
    [{ delayMs: 600_000 }, "delayMs", "a delay over a minute"],
    [{ status: 500, retryAfter: 3 }, "retryAfter", "Retry-After on a 500"],
    [{ delayMs: 5, message: "x" }, "message", "a message without an error"],
    [{ status: 500, when: "always" }, "when", "an unknown field"],
  ])("refuse %j with 400 naming the field (%s, %s), arming nothing", async (body, field, _why) => {
    const ref = await controlledReference();
    expectInvalid(await ctl(ref).post("/faults", body), field);
    expect(ref.control.faults()).toEqual([]);
    expectData(await api(ref, "lumiere-full"), 200);
  });
});
