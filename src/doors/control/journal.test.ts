import request from "supertest";
import { describe, expect, it } from "vitest";
import { JOURNAL_BODY_BUDGET, JOURNAL_BODY_CAP, Journal } from "../../store/journal.js";
import { expectError, expectInvalid, type TestReference } from "../../test-support/reference.js";
import { api, controlledReference, ctl } from "../../test-support/control.js";

// The journal's bodies, its filters, and waiting for a request (WireMock's `verify`).

const create = (ref: TestReference, body: object, label = "lumiere-full") =>
  request(ref.app).post("/api/v1/contacts").set(ref.auth(label)).send(body);

describe("bodies", () => {
  it("records the request body the API read and the body it answered", async () => {
    const ref = await controlledReference();
    const created = await create(ref, { type: "CLIENT", name: "Journal Inc." });
    const [entry] = ref.control.journal();
    expect(entry?.requestBody).toEqual({
      text: '{"type":"CLIENT","name":"Journal Inc."}',
      bytes: 39,
      truncated: false,
    });
    expect(entry?.responseBody).toEqual({ text: created.text, bytes: created.text.length, truncated: false });
    expect(JSON.parse(entry?.responseBody?.text ?? "")).toEqual(created.body);
  });

  it("records an error's body, and no request body where none was read", async () => {
    const ref = await controlledReference();
    await request(ref.app).post("/api/v1/contacts").send({ type: "CLIENT", name: "No token" });
    const [entry] = ref.control.journal();
    // Refused for its token before the body was read.
    expect(entry?.requestBody).toBeNull();
    expect(JSON.parse(entry?.responseBody?.text ?? "")).toMatchObject({ error: { code: "unauthorized" } });
  });

  it("records a body the API refused as it came, bytes that are not UTF-8 included", async () => {
    const ref = await controlledReference();
    await request(ref.app)
      .post("/api/v1/contacts")
      .set(ref.auth("lumiere-full"))
      .set("Content-Type", "application/json")
      .send('{"type":"CLIENT",');
    expect(ref.control.journal()[0]?.requestBody?.text).toBe('{"type":"CLIENT",');
  });

  it("keeps the first 4 KiB of a body, cut at a character's end, and says so", async () => {
    const ref = await controlledReference();
    const address = "é".repeat(400); // 800 bytes of two-byte characters
    await create(ref, { type: "CLIENT", name: "x", address, phone: "1" });
    await request(ref.app).get("/api/v1/contacts?limit=200").set(ref.auth("lumiere-full"));
    const [list, post] = ref.control.journal();
    expect(list?.responseBody?.truncated).toBe(true);
    expect(list?.responseBody?.bytes).toBeGreaterThan(JOURNAL_BODY_CAP);
    expect(Buffer.byteLength(list?.responseBody?.text ?? "")).toBeLessThanOrEqual(JOURNAL_BODY_CAP);
    expect(list?.responseBody?.text).not.toContain("\uFFFD");
    expect(post?.requestBody?.truncated).toBe(false);
  });

  it("blanks anything shaped like a token in a body", async () => {
    const ref = await controlledReference();
    const secret = ref.token("boreal-full");
    await create(ref, { type: "CLIENT", name: `pasted ${secret} by mistake` });
    const text = JSON.stringify(ref.control.journal());
    expect(text).not.toContain(secret.slice(5));
    expect(text).toContain("pasted acct_[redacted] by mistake");
  });

  it("keeps at most 1 MiB of bodies: the oldest entries give theirs up first, and keep the rest", () => {
    const journal = new Journal({ tokenPrefix: "acct" });
    const body = Buffer.alloc(JOURNAL_BODY_CAP, "a");
    const count = Math.ceil(JOURNAL_BODY_BUDGET / (2 * JOURNAL_BODY_CAP)) + 10;
    for (let i = 0; i < count; i++) {
      journal.record({
        time: new Date(0),
        method: "POST",
        path: `/p${i}`,
        query: "",
        status: 201,
        token: null,
        organization: null,
        durationMs: 0,
        fault: null,
        requestBody: body,
        responseBody: body,
      });
    }
    const entries = journal.list();
    expect(entries).toHaveLength(count);
    const kept = entries.filter((e) => e.requestBody?.text !== "");
    expect(kept.length * 2 * JOURNAL_BODY_CAP).toBeLessThanOrEqual(JOURNAL_BODY_BUDGET);
    expect(entries[0]?.requestBody).toEqual({
      text: "a".repeat(JOURNAL_BODY_CAP),
      bytes: 4096,
      truncated: false,
    });
    expect(entries.at(-1)?.requestBody).toEqual({ text: "", bytes: 4096, truncated: true });
    expect(entries.at(-1)?.path).toBe("/p0");
  });
});

describe("filters", () => {
  it("by method, and by `after` a seq already seen", async () => {
    const ref = await controlledReference();
    await create(ref, { type: "CLIENT", name: "One" });
    await request(ref.app).get("/api/v1/contacts").set(ref.auth("lumiere-full"));
    const [, first] = ref.control.journal();
    await create(ref, { type: "CLIENT", name: "Two" });
    const get = async (q: string) =>
      (await ctl(ref).get(`/journal?${q}`)).body as {
        seq: number;
        method: string;
      }[];
    expect((await get("method=POST")).map((e) => e.method)).toEqual(["POST", "POST"]);
    expect((await get(`method=POST&after=${first?.seq ?? 0}`)).map((e) => e.seq)).toEqual([3]);
    expectInvalid(await ctl(ref).get("/journal?method=post"), "method");
    expectInvalid(await ctl(ref).get("/journal?after=-1"), "after");
  });
});

describe("waiting for a request: GET /__control/journal/wait", () => {
  it("answers at once with the oldest matching request already in the journal", async () => {
    const ref = await controlledReference();
    await create(ref, { type: "CLIENT", name: "First" });
    await create(ref, { type: "CLIENT", name: "Second" });
    const res = await ctl(ref).get("/journal/wait?method=POST&path=/api/v1/contacts");
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ seq: 1, method: "POST", status: 201 });
    expect((res.body as { requestBody: { text: string } }).requestBody.text).toContain("First");
  });

  it("waits for the request to be answered, then answers with it", async () => {
    const ref = await controlledReference();
    const waiting = ref.control.waitForRequest({
      method: "POST",
      path: "/api/v1/contacts",
      timeoutMs: 10_000,
    });
    let settled = false;
    void waiting.then(() => (settled = true));
    await request(ref.app).get("/api/v1/contacts").set(ref.auth("lumiere-full"));
    await new Promise((r) => setImmediate(r));
    expect(settled).toBe(false);
    await create(ref, { type: "CLIENT", name: "Awaited" });
    const entry = await waiting;
    expect(entry).toMatchObject({ method: "POST", status: 201, seq: 2 });
  });

  it("with `after`, waits for a new request even when an older one matches", async () => {
    const ref = await controlledReference();
    await create(ref, { type: "CLIENT", name: "Old" });
    const seen = ref.control.journal()[0]?.seq ?? 0;
    const waiting = ref.control.waitForRequest({ method: "POST", after: seen, timeoutMs: 10_000 });
    await create(ref, { type: "CLIENT", name: "New" });
    expect((await waiting).requestBody?.text).toContain("New");
  });

  it("answers 404 naming what it waited for and the last requests, after the timeout", async () => {
    const ref = await controlledReference();
    await request(ref.app).get("/api/v1/products").set(ref.auth("lumiere-full"));
    const started = performance.now();
    const res = await ctl(ref).get("/journal/wait?method=POST&path=/api/v1/contacts&timeoutMs=50");
    // A lower bound only: the wait is real time.
    expect(performance.now() - started).toBeGreaterThanOrEqual(45);
    const error = expectError(res, 404, "not_found");
    expect(error.message).toContain("No POST /api/v1/contacts request within 50 ms");
    expect(error.message).toContain("GET /api/v1/products 200");
  });

  it.each([
    ["timeoutMs=60001", "timeoutMs"],
    ["timeoutMs=-5", "timeoutMs"],
    ["status=abc", "status"],
    ["limit=3", "limit"],
  ])("refuses ?%s with 400 naming %s", async (query, field) => {
    const ref = await controlledReference();
    expectInvalid(await ctl(ref).get(`/journal/wait?${query}`), field);
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
