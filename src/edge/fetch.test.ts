import { describe, expect, vi } from "vitest";
import { ControlClient } from "../clients/control.js";
import { referenceTest, testReference } from "../test-support/reference.js";
import { fetchEdge } from "./fetch.js";
import type { App } from "./fast-path.js";

// reference.fetch: the app answered in process (src/edge/fetch.ts). What it shares with HTTP request
// by request is the property of fetch.equivalence.test.ts; here, what is the edge's own.

const it = referenceTest();
const BASE = "http://localhost:4010";
const CONTACTS = `${BASE}/api/v1/contacts`;

describe("reference.fetch", () => {
  it("answers a list read as the API does, with fetch's Response and the URL it asked", async ({ ref }) => {
    const res = await ref.fetch(`${CONTACTS}?limit=2#top`, { headers: ref.auth("lumiere-full") });
    expect(res.status).toBe(200);
    expect(res.statusText).toBe("OK");
    expect(res.url).toBe(`${CONTACTS}?limit=2`);
    expect(res.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    const body = (await res.json()) as { data: unknown[] };
    expect(body.data).toHaveLength(2);
  });

  it("takes a Request as well as a URL and init, and reads its body", async ({ ref }) => {
    const request = new Request(CONTACTS, {
      method: "POST",
      headers: { ...ref.auth("lumiere-full"), "Content-Type": "application/json" },
      body: JSON.stringify({ type: "SUPPLIER", name: "Sent as a Request" }),
    });
    const created = await ref.fetch(request);
    expect(created.status).toBe(201);
    const { data } = (await created.json()) as { data: { id: string } };
    const list = await ref.fetch(`${CONTACTS}?type=SUPPLIER&limit=200`, {
      headers: ref.auth("lumiere-full"),
    });
    const ids = ((await list.json()) as { data: { id: string }[] }).data.map((c) => c.id);
    expect(ids).toContain(data.id);
  });

  it("answers a pre-flight with no body and the CORS headers of §4", async ({ ref }) => {
    const res = await ref.fetch(CONTACTS, {
      method: "OPTIONS",
      headers: {
        Origin: "http://localhost:5173",
        "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "authorization,content-type",
      },
    });
    expect(res.status).toBe(204);
    expect(res.body).toBeNull();
    expect(res.headers.get("access-control-allow-methods")).toBe("GET,POST,PUT,PATCH,DELETE,OPTIONS");
    expect(res.headers.get("access-control-allow-headers")).toBe("Authorization,Content-Type");
  });

  it("carries the headers only a connection has, as Node writes them over HTTP", async ({ ref }) => {
    const res = await ref.fetch(CONTACTS, { headers: ref.auth("lumiere-full") });
    expect(res.headers.get("date")).toMatch(
      /^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/,
    );
    expect(res.headers.get("connection")).toBe("keep-alive");
    expect(res.headers.get("keep-alive")).toBe("timeout=5");
    await res.arrayBuffer();
  });

  it("counts usage and journals each request as over HTTP", async ({ ref }) => {
    const id = ref.tokenId("lumiere-full");
    await ref.fetch(`${CONTACTS}?limit=1`, { headers: ref.auth("lumiere-full") });
    await ref.fetch(`${BASE}/api/v1/nowhere`, { headers: ref.auth("lumiere-full") });
    expect(ref.tokens.get(id)?.requestCount).toBe(2);
    const journal = ref.control.journal();
    expect(journal.map((e) => [e.method, e.path, e.query, e.status, e.token])).toEqual([
      ["GET", "/api/v1/nowhere", "", 404, "lumiere-full"],
      ["GET", "/api/v1/contacts", "limit=1", 200, "lumiere-full"],
    ]);
  });

  it("answers a sandbox's token from the sandbox alone, and journals it there", async ({ ref }) => {
    const sandbox = ref.sandbox();
    const token = sandbox.tokens["lumiere-full"];
    if (token === undefined) throw new Error("the sandbox has no lumiere-full token");
    const headers = { Authorization: `Bearer ${token}`, "Content-Type": "application/json" };
    const created = await ref.fetch(CONTACTS, {
      method: "POST",
      headers,
      body: JSON.stringify({ type: "CLIENT", name: "Only in the sandbox" }),
    });
    expect(created.status).toBe(201);
    const read = async (auth: Record<string, string>) =>
      (
        (await (await ref.fetch(`${CONTACTS}?limit=200`, { headers: auth })).json()) as {
          data: { name: string }[];
        }
      ).data.map((c) => c.name);
    expect(await read(headers)).toContain("Only in the sandbox");
    expect(await read(ref.auth("lumiere-full"))).not.toContain("Only in the sandbox");
    expect(sandbox.journal().map((e) => [e.method, e.status])).toEqual([
      ["GET", 200],
      ["POST", 201],
    ]);
    expect(ref.control.journal().map((e) => e.method)).toEqual(["GET"]);
  });

  it("answers many requests at once, each its own answer", async ({ ref }) => {
    const limits = Array.from({ length: 20 }, (_, i) => (i % 5) + 1);
    const answers = await Promise.all(
      limits.map(async (limit) => {
        const res = await ref.fetch(`${CONTACTS}?limit=${limit}`, { headers: ref.auth("lumiere-full") });
        return ((await res.json()) as { data: unknown[] }).data.length;
      }),
    );
    expect(answers).toEqual(limits);
    expect(ref.control.journal()).toHaveLength(20);
  });

  it("refuses a URL that is not HTTP with a TypeError, as fetch does", async ({ ref }) => {
    await expect(ref.fetch("ftp://localhost/api/v1/contacts")).rejects.toThrow(TypeError);
  });
});

describe("the control surface through reference.fetch", () => {
  it("answers a request carrying its key, and the typed client runs on it", async ({ ref }) => {
    const key = ref.controlKey ?? "";
    const control = new ControlClient({ baseUrl: BASE, key, fetch: ref.fetch });
    await control.addFault({ path: "/api/v1/contacts", status: 500 });
    const failed = await ref.fetch(CONTACTS, { headers: ref.auth("lumiere-full") });
    expect(failed.status).toBe(500);
    expect(((await control.journal()) as { status: number | null }[])[0]?.status).toBe(500);
  });

  it("keeps its guard: no key is 401, a Host that does not name the server is 403", async ({ ref }) => {
    const noKey = await ref.fetch(`${BASE}/__control/`);
    expect(noKey.status).toBe(401);
    const foreign = await ref.fetch("https://api.example.test/__control/", {
      headers: { Authorization: `Bearer ${ref.controlKey ?? ""}` },
    });
    expect(foreign.status).toBe(403);
  });
});

describe("faults and latency through reference.fetch", () => {
  it("a drop rejects with a TypeError as fetch does, journaled without a status, usage counted", async ({
    ref,
  }) => {
    ref.control.addFault({ path: "/api/v1/contacts", drop: true });
    const failure = await ref.fetch(CONTACTS, { headers: ref.auth("lumiere-full") }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(TypeError);
    expect((failure as TypeError).message).toBe("fetch failed");
    await vi.waitFor(() => expect(ref.control.journal()).toHaveLength(1));
    expect(ref.control.journal()[0]).toMatchObject({ status: null, fault: "fault_1", token: "lumiere-full" });
    expect(ref.tokens.get(ref.tokenId("lumiere-full"))?.requestCount).toBe(1);
    // The next request is served on a new connection.
    expect((await ref.fetch(CONTACTS, { headers: ref.auth("lumiere-full") })).status).toBe(200);
  });

  it("a 429 fault carries Retry-After", async ({ ref }) => {
    ref.control.addFault({ code: "rate_limited", retryAfter: 7 });
    const res = await ref.fetch(CONTACTS, { headers: ref.auth("lumiere-full") });
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe("7");
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("rate_limited");
  });

  it("a delay holds the answer back at least that long", async ({ ref }) => {
    ref.control.addFault({ delayMs: 60 });
    const started = performance.now();
    const res = await ref.fetch(CONTACTS, { headers: ref.auth("lumiere-full") });
    expect(performance.now() - started).toBeGreaterThanOrEqual(59);
    expect(res.status).toBe(200);
  });

  it("a delay honours the request's AbortSignal: rejected with its reason, journaled without a status", async ({
    ref,
  }) => {
    ref.control.addFault({ delayMs: 10_000 });
    const controller = new AbortController();
    const pending = ref.fetch(CONTACTS, { headers: ref.auth("lumiere-full"), signal: controller.signal });
    await vi.waitFor(() => expect(ref.control.faults()).toHaveLength(0));
    controller.abort();
    await expect(pending).rejects.toMatchObject({ name: "AbortError" });
    await vi.waitFor(() => expect(ref.control.journal()).toHaveLength(1));
    expect(ref.control.journal()[0]).toMatchObject({ status: null, fault: "fault_1" });
  });

  it("a signal already aborted rejects before anything is sent; a timeout's reason is its own", async ({
    ref,
  }) => {
    const reason = new Error("given up");
    await expect(ref.fetch(CONTACTS, { signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
    expect(ref.control.journal()).toHaveLength(0);
    ref.control.addFault({ delayMs: 10_000 });
    await expect(ref.fetch(CONTACTS, { signal: AbortSignal.timeout(20) })).rejects.toMatchObject({
      name: "TimeoutError",
    });
  });

  it("latency delays every answer, pre-flights included, and honours the signal", async () => {
    const ref = await testReference({ latency: { minMs: 40, maxMs: 40 } });
    const started = performance.now();
    const preflight = await ref.fetch(CONTACTS, { method: "OPTIONS" });
    expect(performance.now() - started).toBeGreaterThanOrEqual(39);
    expect(preflight.status).toBe(204);
    const controller = new AbortController();
    const pending = ref.fetch(CONTACTS, { headers: ref.auth("lumiere-full"), signal: controller.signal });
    controller.abort();
    await expect(pending).rejects.toMatchObject({ name: "AbortError" });
  });
});

describe("a body cut short", () => {
  it("resolves with the head and fails reading the body with a TypeError, as fetch over HTTP", async ({
    serve,
  }) => {
    // An app that promises 100 bytes, sends 10 and closes the connection.
    const cut: App = (_req, res) => {
      res.writeHead(200, { "Content-Type": "text/plain", "Content-Length": "100" });
      res.write("0123456789", () => res.socket?.destroy());
    };
    const port = await serve(cut);
    const outcome = async (res: Response) => ({
      status: res.status,
      length: res.headers.get("content-length"),
      read: await res.text().then(
        (text) => `read ${text}`,
        (err: unknown) => `${(err as Error).name}: ${(err as Error).message}`,
      ),
    });
    const overHttp = await outcome(await fetch(`http://127.0.0.1:${port}/`));
    const inProcess = await outcome(await fetchEdge(cut)(`http://127.0.0.1:${port}/`));
    expect(overHttp).toEqual({ status: 200, length: "100", read: "TypeError: terminated" });
    expect(inProcess).toEqual(overHttp);
  });
});
