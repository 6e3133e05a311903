import fc from "fast-check";
import request from "supertest";
import { describe, expect, it } from "vitest";
import {
  checkProperty,
  expectData,
  expectError,
  expectInvalid,
  type TestReference,
} from "../../test-support/reference.js";
import { controlledReference, ctl } from "../../test-support/control.js";

// The control surface, operation by operation, over HTTP (the door) and in process (`ref.control`).

const ORGS = ["org_lumiere", "org_boreal"] as const;
const LABEL = { org_lumiere: "lumiere-full", org_boreal: "boreal-full" } as const;

const api = (ref: TestReference, label: string, path = "/api/v1/contacts?limit=200") =>
  request(ref.app).get(path).set(ref.auth(label));

const createContact = (ref: TestReference, label: string, name: string) =>
  request(ref.app).post("/api/v1/contacts").set(ref.auth(label)).send({ type: "CLIENT", name });

const ids = async (ref: TestReference, label: string, list: string) =>
  (expectData(await api(ref, label, `/api/v1/${list}?limit=200`), 200) as { id: string }[]).map((r) => r.id);

/** Everything a reset promises to put back, read from outside and inside. */
async function snapshot(ref: TestReference) {
  const lists: Record<string, string[]> = {};
  for (const org of ORGS) {
    for (const list of ["contacts", "products", "invoices", "expenses"]) {
      lists[`${org} ${list}`] = await ids(ref, LABEL[org], list);
    }
  }
  const tokens = ref.store
    .organizations()
    .map((o) => ref.tokens.list(o.id).map((t) => ({ id: t.id, name: t.name, status: t.status })));
  return { lists, tokens, faults: ref.control.faults() };
}

describe("GET /__control/: what the surface offers", () => {
  it("lists its operations and the clock, over HTTP as in process", async () => {
    const ref = await controlledReference();
    const res = await ctl(ref).get("/");
    expect(res.status).toBe(200);
    expect(res.body).toEqual(JSON.parse(JSON.stringify(ref.control.describe())));
    const body = res.body as { operations: { method: string; path: string }[]; clock: { now: string } };
    expect(body.operations.map((o) => `${o.method} ${o.path}`)).toContain("POST /__control/reset");
    expect(body.clock.now).toBe(ref.clock.now().toISOString());
  });

  it("answers an unknown operation with 404 in the envelope", async () => {
    const ref = await controlledReference();
    expectError(await ctl(ref).get("/nothing"), 404, "not_found");
    expectError(await ctl(ref).post("/clock", {}), 404, "not_found");
  });
});

describe("POST /__control/reset", () => {
  /** Changes every part of the state a reset covers. */
  async function dirty(ref: TestReference) {
    expectData(await createContact(ref, "lumiere-full", "Created in org_lumiere"), 201);
    expectData(await createContact(ref, "boreal-full", "Created in org_boreal"), 201);
    ref.tokens.revoke(ref.tokenId("lumiere-contacts-read"));
    const created = ref.tokens.create({
      organizationId: "org_lumiere",
      name: "made",
      scopes: ["contacts:read"],
    });
    ref.control.addFault({ method: "POST", path: "/api/v1/products", status: 500, times: 5 });
    return created.token;
  }

  it("puts records, tokens and their usage, faults and the journal back to the fixtures", async () => {
    const ref = await controlledReference();
    const fresh = await snapshot(ref);
    const made = await dirty(ref);
    expect(await snapshot(ref)).not.toEqual(fresh);

    const res = await ctl(ref).post("/reset");
    expect(res.status).toBe(200);
    expect((res.body as { organizations: string[] }).organizations).toEqual(
      ref.store.organizations().map((o) => o.id),
    );
    expect(ref.control.journal()).toEqual([]);
    expect(await snapshot(ref)).toEqual(fresh);
    expect(ref.tokens.get(ref.tokenId("lumiere-full"))?.requestCount).toBe(4); // the four reads of the snapshot after the reset
    expectError(
      await request(ref.app).get("/api/v1/contacts").set("Authorization", `Bearer ${made}`),
      401,
      "unauthorized",
    );
  });

  it("puts the clock back as it started, and the latency", async () => {
    const ref = await controlledReference({ latency: { minMs: 0, maxMs: 1 } });
    ref.control.setClock({ advance: "P3D", frozen: true });
    ref.state.latency = { minMs: 5, maxMs: 9 };
    await ctl(ref).post("/reset");
    expect(ref.control.clock()).toEqual({ now: "2026-11-20T12:00:00.000Z", frozen: false, offsetMs: 0 });
    expect(ref.state.latency).toEqual({ minMs: 0, maxMs: 1 });
  });

  it("of one organization leaves the clock, which every organization shares", async () => {
    const ref = await controlledReference();
    ref.control.setClock({ advance: "P3D" });
    ref.control.reset({ organization: "org_lumiere" });
    expect(ref.control.clock().now).toBe("2026-11-23T12:00:00.000Z");
  });

  it("zeroes the usage of the fixture tokens, which keep their ids", async () => {
    const ref = await controlledReference();
    const id = ref.tokenId("lumiere-full");
    await api(ref, "lumiere-full");
    expect(ref.tokens.get(id)?.requestCount).toBe(1);
    ref.control.reset();
    expect(ref.tokenId("lumiere-full")).toBe(id);
    expect(ref.tokens.get(id)).toMatchObject({ requestCount: 0, lastUsedAt: null, status: "Active" });
  });

  it("gives a rate-limited token its quota back", async () => {
    const ref = await controlledReference({ rateLimit: { limit: 2, windowMs: 60_000 } });
    await api(ref, "lumiere-full");
    await api(ref, "lumiere-full");
    expectError(await api(ref, "lumiere-full"), 429, "rate_limited");
    await ctl(ref).post("/reset");
    expectData(await api(ref, "lumiere-full"), 200);
  });

  it("with { organization } resets that organization only", async () => {
    const ref = await controlledReference();
    const fresh = await snapshot(ref);
    await dirty(ref);
    ref.control.addFault({ organization: "org_lumiere", status: 500 });
    const res = await ctl(ref).post("/reset", { organization: "org_lumiere" });
    expect(res.status).toBe(200);
    const after = await snapshot(ref);
    expect(after.lists["org_lumiere contacts"]).toEqual(fresh.lists["org_lumiere contacts"]);
    expect(after.tokens[0]).toEqual(fresh.tokens[0]);
    expect(after.lists["org_boreal contacts"]).toHaveLength(
      (fresh.lists["org_boreal contacts"]?.length ?? 0) + 1,
    );
    // The fault aimed at org_lumiere went with it; the one aimed at every organization stays.
    expect(after.faults.map((f) => f.path)).toEqual(["/api/v1/products"]);
  });

  it("refuses an unknown organization or field with 400 and changes nothing", async () => {
    const ref = await controlledReference();
    await createContact(ref, "lumiere-full", "Kept");
    const before = await snapshot(ref);
    expectInvalid(await ctl(ref).post("/reset", { organization: "org_nowhere" }), "organization");
    expectInvalid(await ctl(ref).post("/reset", { organisation: "org_lumiere" }), "organisation");
    expect(() => ref.control.reset({ organization: "org_nowhere" })).toThrow(/organization/);
    expect(await snapshot(ref)).toEqual(before);
  });

  it("after any sequence of creates, gives the lists of a fresh start", async () => {
    const ref = await controlledReference();
    const fresh = await snapshot(ref);
    const create = fc.record({
      org: fc.constantFrom(...ORGS),
      kind: fc.constantFrom("contacts", "products"),
      name: fc.string({ minLength: 1, maxLength: 20 }).filter((s) => s.trim() !== ""),
    });
    let n = 0;
    await checkProperty(
      fc.asyncProperty(fc.array(create, { maxLength: 8 }), fc.boolean(), async (creates, inProcess) => {
        for (const c of creates) {
          n += 1;
          const body =
            c.kind === "contacts"
              ? { type: "SUPPLIER", name: `x${c.name}` }
              : { sku: `SKU-${n}`, name: `x${c.name}`, unitPrice: 1 };
          const res = await request(ref.app).post(`/api/v1/${c.kind}`).set(ref.auth(LABEL[c.org])).send(body);
          expect(res.status).toBe(201);
        }
        if (inProcess) ref.control.reset();
        else expect((await ctl(ref).post("/reset")).status).toBe(200);
        const after = await snapshot(ref);
        expect(after.lists).toEqual(fresh.lists);
        expect(after.tokens).toEqual(fresh.tokens);
      }),
      20,
    );
  });
});

describe("the clock: GET, PUT and DELETE /__control/clock", () => {
  it("is read over HTTP as in process", async () => {
    const ref = await controlledReference();
    const res = await ctl(ref).get("/clock");
    expect(res.body).toEqual({ now: "2026-11-20T12:00:00.000Z", frozen: false, offsetMs: 0 });
    expect(ref.control.clock()).toEqual(res.body);
  });

  it("set to an instant, it dates what is created then", async () => {
    const ref = await controlledReference();
    const res = await ctl(ref).put("/clock", { now: "2027-01-01T00:00:00Z", frozen: true });
    expect(res.body).toMatchObject({ now: "2027-01-01T00:00:00.000Z", frozen: true });
    const created = expectData(await createContact(ref, "lumiere-full", "New year"), 201) as {
      createdAt: string;
    };
    expect(created.createdAt).toBe("2027-01-01T00:00:00.000Z");
  });

  it("moved past a token's expiry, makes the token Expired and the API answer 401 (§3)", async () => {
    const ref = await controlledReference();
    const expiring = ref.tokens.get(ref.tokenId("lumiere-expiring"));
    if (expiring?.expiresAt === null || expiring === undefined)
      throw new Error("fixture lumiere-expiring has no expiry");
    expectData(await api(ref, "lumiere-expiring", "/api/v1/contacts?limit=1"), 200);
    await ctl(ref).put("/clock", { now: expiring.expiresAt.toISOString() });
    expect(ref.tokens.get(expiring.id)?.status).toBe("Expired");
    expectError(await api(ref, "lumiere-expiring", "/api/v1/contacts?limit=1"), 401, "unauthorized");
  });

  it("advanced two days, expires lumiere-expires-tomorrow, which a reset makes Active again", async () => {
    const ref = await controlledReference();
    expect(ref.manifest.tokens.find((t) => t.label === "lumiere-expires-tomorrow")?.expiresAt).toBe(
      "2026-11-21T12:00:00.000Z",
    );
    expectData(await api(ref, "lumiere-expires-tomorrow", "/api/v1/contacts?limit=1"), 200);
    await ctl(ref).put("/clock", { advance: "P2D" });
    expect(ref.tokens.get(ref.tokenId("lumiere-expires-tomorrow"))?.status).toBe("Expired");
    expectError(await api(ref, "lumiere-expires-tomorrow", "/api/v1/contacts?limit=1"), 401, "unauthorized");
    await ctl(ref).post("/reset");
    expectData(await api(ref, "lumiere-expires-tomorrow", "/api/v1/contacts?limit=1"), 200);
  });

  it("advanced a minute, gives a rate-limited token its quota back (§8)", async () => {
    const ref = await controlledReference({ rateLimit: { limit: 3, windowMs: 60_000 } });
    for (let i = 0; i < 3; i++) expectData(await api(ref, "lumiere-full"), 200);
    const limited = expectError(await api(ref, "lumiere-full"), 429, "rate_limited");
    expect(limited.message).toBeTruthy();
    expect((await ctl(ref).put("/clock", { advance: "PT61S" })).status).toBe(200);
    expectData(await api(ref, "lumiere-full"), 200);
  });

  it("frozen, stays put; thawed, runs on; DELETE takes it back to its start", async () => {
    const ref = await controlledReference();
    await ctl(ref).put("/clock", { frozen: true, advance: "P1D" });
    expect(ref.control.clock()).toMatchObject({ now: "2026-11-21T12:00:00.000Z", frozen: true });
    ref.control.setClock({ frozen: false });
    expect(ref.control.clock().frozen).toBe(false);
    const res = await ctl(ref).delete("/clock");
    expect(res.body).toEqual({ now: "2026-11-20T12:00:00.000Z", frozen: false, offsetMs: 0 });
  });

  it.each([
    [{}, "", "nothing to do"],
    [{ now: "2027-01-01" }, "now", "a date without time"],
    [{ now: "2027-01-01T00:00:00" }, "now", "no zone"],
    [{ now: 1798761600000 }, "now", "a number"],
    [{ advance: "61s" }, "advance", "not ISO 8601"],
    [{ advance: "P1M" }, "advance", "months"],
    [{ now: "2027-01-01T00:00:00Z", advance: "PT1S" }, "advance", "both now and advance"],
    [{ frozen: "yes" }, "frozen", "not a boolean"],
    [{ speed: 2 }, "speed", "an unknown field"],
  ])("refuses %j with 400 naming the field (%s, %s) and does not move", async (body, field, _why) => {
    const ref = await controlledReference();
    const res = await ctl(ref).put("/clock", body);
    expectError(res, 400, "invalid_request");
    if (field !== "") expectInvalid(res, field);
    expect(ref.control.clock()).toEqual({ now: "2026-11-20T12:00:00.000Z", frozen: false, offsetMs: 0 });
  });
});

describe("faults: POST, GET and DELETE /__control/faults", () => {
  it("answer exactly the next N matching requests with the error, and no other request", async () => {
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

  it("aim at one token label or one organization", async () => {
    const ref = await controlledReference();
    ref.control.addFault({ token: "lumiere-contacts-read", code: "forbidden", times: 3 });
    ref.control.addFault({ organization: "org_boreal", status: 500 });
    expectData(await api(ref, "lumiere-full"), 200);
    expectError(await api(ref, "lumiere-contacts-read"), 403, "forbidden");
    expectError(await api(ref, "boreal-full"), 500, "internal_error");
    expectData(await api(ref, "boreal-full"), 200);
    expect(ref.control.faults().map((f) => [f.token, f.remaining])).toEqual([["lumiere-contacts-read", 2]]);
  });

  it("answer a 429 with Retry-After, and a message of one's own", async () => {
    const ref = await controlledReference();
    ref.control.addFault({ code: "rate_limited", retryAfter: 7, message: "Slow down, test" });
    const res = await api(ref, "lumiere-full");
    expect(expectError(res, 429, "rate_limited").message).toBe("Slow down, test");
    expect(res.headers["retry-after"]).toBe("7");
  });

  it("are listed while armed and cleared by DELETE", async () => {
    const ref = await controlledReference();
    ref.control.addFault({ status: 500, times: 4 });
    ref.control.addFault({ delayMs: 10 });
    expect((await ctl(ref).get("/faults")).body).toHaveLength(2);
    expect((await ctl(ref).delete("/faults")).body).toEqual({ cleared: 2 });
    expectData(await api(ref, "lumiere-full"), 200);
  });

  it.each([
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

describe("the journal: GET and DELETE /__control/journal", () => {
  it("holds the API requests newest first, with their outcome, token label and organization", async () => {
    const ref = await controlledReference();
    await api(ref, "lumiere-full", "/api/v1/contacts?limit=2");
    await request(ref.app).get("/api/v1/products");
    await api(ref, "boreal-full", "/api/v1/invoices");
    const res = await ctl(ref).get("/journal");
    const entries = res.body as Array<Record<string, unknown>>;
    expect(entries.map((e) => [e.method, e.path, e.status, e.token, e.organization])).toEqual([
      ["GET", "/api/v1/invoices", 200, "boreal-full", "org_boreal"],
      ["GET", "/api/v1/products", 401, null, null],
      ["GET", "/api/v1/contacts", 200, "lumiere-full", "org_lumiere"],
    ]);
    expect(entries[2]).toMatchObject({ query: "limit=2", time: "2026-11-20T12:00:00.000Z", fault: null });
    expect(typeof entries[0]?.durationMs).toBe("number");
    expect(ref.control.journal()).toEqual(entries);
  });

  it("is filtered by path and status and cut by limit", async () => {
    const ref = await controlledReference();
    await api(ref, "lumiere-full");
    await request(ref.app).get("/api/v1/contacts");
    await api(ref, "lumiere-full", "/api/v1/products");
    const get = async (q: string) =>
      (await ctl(ref).get(`/journal?${q}`)).body as Array<{ path: string; status: number }>;
    expect((await get("path=/api/v1/contacts")).map((e) => e.status)).toEqual([401, 200]);
    expect((await get("status=200")).map((e) => e.path)).toEqual(["/api/v1/products", "/api/v1/contacts"]);
    expect(await get("limit=1")).toHaveLength(1);
    expectInvalid(await ctl(ref).get("/journal?status=abc"), "status");
    expectInvalid(await ctl(ref).get("/journal?limit=1001"), "limit");
  });

  it("never holds a token in clear nor an Authorization value", async () => {
    const ref = await controlledReference();
    const secret = ref.token("lumiere-full");
    await api(ref, "lumiere-full");
    // Twice, and twice in one query: the pattern that blanks them is built once and used again.
    await request(ref.app).get(`/api/v1/contacts?access_token=${secret}`);
    await request(ref.app).get(`/api/v1/contacts?a=${secret}&b=${secret}`);
    await request(ref.app).get("/api/v1/contacts").set("Authorization", `Bearer ${secret}x`);
    const text = JSON.stringify((await ctl(ref).get("/journal")).body);
    expect(text).not.toContain(secret.slice(5));
    // An answer may say "Authorization: Bearer <token>" in its message; never with a token.
    expect(text).not.toMatch(/Bearer acct_/);
    expect(text).toContain("access_token=acct_[redacted]");
    expect(text).toContain("a=acct_[redacted]&b=acct_[redacted]");
  });

  it("names the fault that took a request", async () => {
    const ref = await controlledReference();
    const fault = ref.control.addFault({ status: 500 });
    await api(ref, "lumiere-full");
    expect(ref.control.journal()[0]).toMatchObject({ status: 500, fault: fault.id });
  });

  it("keeps the last 1 000 requests", async () => {
    const ref = await controlledReference();
    for (let i = 0; i < 1005; i++)
      ref.state.journal.record({
        time: new Date(0),
        method: "GET",
        path: `/p${i}`,
        query: "",
        status: 200,
        token: null,
        organization: null,
        durationMs: 0,
        fault: null,
        requestBody: null,
        responseBody: null,
      });
    const entries = ref.control.journal();
    expect(entries).toHaveLength(1000);
    expect(entries[0]?.path).toBe("/p1004");
    expect(entries.at(-1)?.path).toBe("/p5");
  });

  it("is emptied by DELETE", async () => {
    const ref = await controlledReference();
    await api(ref, "lumiere-full");
    expect((await ctl(ref).delete("/journal")).body).toEqual({ cleared: 1 });
    expect(ref.control.journal()).toEqual([]);
  });
});

describe("the latency: GET, PUT and DELETE /__control/latency", () => {
  it("changes the delay before every API answer, and goes back to --latency", async () => {
    const ref = await controlledReference({ latency: { minMs: 1, maxMs: 2 } });
    expect((await ctl(ref).get("/latency")).body).toEqual({ latency: { minMs: 1, maxMs: 2 } });
    expect((await ctl(ref).put("/latency", { minMs: 120 })).body).toEqual({
      latency: { minMs: 120, maxMs: 120 },
    });
    const started = performance.now();
    expectData(await api(ref, "lumiere-full"), 200);
    // A lower bound only: the delay is real time.
    expect(performance.now() - started).toBeGreaterThanOrEqual(115);
    expect((await ctl(ref).put("/latency", { minMs: 0 })).body).toEqual({ latency: null });
    expect((await ctl(ref).delete("/latency")).body).toEqual({ latency: { minMs: 1, maxMs: 2 } });
    expect(ref.control.describe().latency).toEqual({ minMs: 1, maxMs: 2 });
  });

  it.each([
    [{}, "minMs"],
    [{ minMs: -1 }, "minMs"],
    [{ minMs: 60_001 }, "minMs"],
    [{ minMs: 300, maxMs: 200 }, "maxMs"],
    [{ minMs: 1.5 }, "minMs"],
    [{ minMs: 1, jitter: 2 }, "jitter"],
  ])("refuses %j with 400 naming %s, changing nothing", async (body, field) => {
    const ref = await controlledReference();
    expectInvalid(await ctl(ref).put("/latency", body), field);
    expect(ref.state.latency).toBeNull();
  });
});
