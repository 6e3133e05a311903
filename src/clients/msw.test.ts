// @vitest-environment jsdom
import { http, HttpResponse } from "msw";
import { setupServer } from "msw/node";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { testReference, type TestReference } from "../test-support/reference.js";
import { referenceHandlers } from "./msw.js";

// The handlers of `accounting-api-reference/msw` in a real msw `setupServer`, under jsdom as a
// component test runs: requests made with fetch and with jsdom's XMLHttpRequest.

const BASE = "http://localhost:4010";
const CONTACTS = `${BASE}/api/v1/contacts`;
/** An endpoint of the app's own (its dev server's origin), answered by a handler of its own. */
const OWN = "http://localhost:5173/session";

let ref: TestReference;
const server = setupServer(http.get(OWN, () => HttpResponse.json({ user: "ada" })));
const unhandled: string[] = [];

beforeAll(() => {
  server.listen({ onUnhandledRequest: (request) => void unhandled.push(request.url) });
});
afterAll(() => {
  server.close();
});
// A fresh reference for every test, behind handlers of its own.
beforeEach(async () => {
  ref = await testReference();
  server.use(...referenceHandlers(ref, BASE));
  unhandled.length = 0;
});
afterEach(() => {
  server.resetHandlers();
});

/** What this file uses of jsdom's XMLHttpRequest: the project compiles without lib.dom (DECISIONS.md). */
interface Xhr {
  readonly status: number;
  readonly responseText: string;
  open(method: string, url: string): void;
  setRequestHeader(name: string, value: string): void;
  getResponseHeader(name: string): string | null;
  addEventListener(type: "load" | "error", listener: () => void): void;
  send(body?: string): void;
}
const dom = globalThis as unknown as {
  XMLHttpRequest: new () => Xhr;
  window?: unknown;
  document?: { createElement?: unknown };
};

/** An XMLHttpRequest as a component's code sends one; resolves on load, or with "network error". */
function xhr(
  method: string,
  url: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<Xhr | "network error"> {
  return new Promise((resolve) => {
    const request = new dom.XMLHttpRequest();
    request.open(method, url);
    for (const [name, value] of Object.entries(headers)) request.setRequestHeader(name, value);
    request.addEventListener("load", () => resolve(request));
    request.addEventListener("error", () => resolve("network error"));
    request.send(body);
  });
}

describe("the reference behind msw's setupServer, under jsdom", () => {
  it("runs in jsdom: a window, its XMLHttpRequest, and fetch", () => {
    expect(typeof dom.window).toBe("object");
    expect(typeof dom.document?.createElement).toBe("function");
    expect(typeof dom.XMLHttpRequest).toBe("function");
  });

  it("answers fetch with the API's answer, journaled and counted", async () => {
    const res = await fetch(`${CONTACTS}?limit=3`, { headers: ref.auth("lumiere-full") });
    expect(res.status).toBe(200);
    expect(res.headers.get("ratelimit")).toBe('"per-token"; r=999; t=60');
    expect(((await res.json()) as { data: unknown[] }).data).toHaveLength(3);
    expect(ref.control.journal()[0]).toMatchObject({ method: "GET", query: "limit=3", status: 200 });
    expect(ref.tokens.get(ref.tokenId("lumiere-full"))?.requestCount).toBe(1);
  });

  it("answers fetch's errors as the API does: 401 without a token, 400 naming the field", async () => {
    const anonymous = await fetch(CONTACTS);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get("www-authenticate")).toBe("Bearer");
    const invalid = await fetch(CONTACTS, {
      method: "POST",
      headers: { ...ref.auth("lumiere-full"), "Content-Type": "application/json" },
      body: JSON.stringify({ type: "CLIENT", name: "" }),
    });
    expect(invalid.status).toBe(400);
    expect(((await invalid.json()) as { error: { details: object } }).error.details).toHaveProperty("name");
  });

  it("answers XMLHttpRequest: a creation, then the list that holds it", async () => {
    const created = await xhr(
      "POST",
      CONTACTS,
      { ...ref.auth("lumiere-full"), "Content-Type": "application/json" },
      JSON.stringify({ type: "CLIENT", name: "Sent with XHR" }),
    );
    if (created === "network error") throw new Error("the creation failed");
    expect(created.status).toBe(201);
    expect(created.getResponseHeader("content-type")).toBe("application/json; charset=utf-8");
    const id = (JSON.parse(created.responseText) as { data: { id: string } }).data.id;
    const list = await xhr("GET", `${CONTACTS}?type=CLIENT&limit=200`, ref.auth("lumiere-full"));
    if (list === "network error") throw new Error("the list failed");
    expect(list.status).toBe(200);
    expect((JSON.parse(list.responseText) as { data: { id: string }[] }).data.map((c) => c.id)).toContain(id);
  });

  it("answers a pre-flight, with fetch and with XMLHttpRequest", async () => {
    const headers = { "Access-Control-Request-Method": "POST", Origin: "http://localhost:3000" };
    const viaFetch = await fetch(CONTACTS, { method: "OPTIONS", headers });
    expect(viaFetch.status).toBe(204);
    expect(viaFetch.headers.get("access-control-allow-headers")).toBe("Authorization,Content-Type");
    const viaXhr = await xhr("OPTIONS", CONTACTS, { "Access-Control-Request-Method": "POST" });
    if (viaXhr === "network error") throw new Error("the pre-flight failed");
    expect(viaXhr.status).toBe(204);
    expect(viaXhr.getResponseHeader("access-control-allow-origin")).toBe("*");
  });

  it("a drop fault is a network error for fetch (a TypeError) and for XMLHttpRequest", async () => {
    ref.control.addFault({ path: "/api/v1/contacts", drop: true, times: 2 });
    await expect(fetch(CONTACTS, { headers: ref.auth("lumiere-full") })).rejects.toThrow(TypeError);
    expect(await xhr("GET", CONTACTS, ref.auth("lumiere-full"))).toBe("network error");
    await vi.waitFor(() => expect(ref.control.journal()).toHaveLength(2));
    expect(ref.control.journal().map((e) => e.status)).toEqual([null, null]);
  });

  it("a 429 fault carries Retry-After; a status fault its status; a delay holds the answer", async () => {
    ref.control.addFault({ code: "rate_limited", retryAfter: 3 });
    const limited = await fetch(CONTACTS, { headers: ref.auth("lumiere-full") });
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBe("3");
    ref.control.addFault({ status: 500 });
    const failed = await xhr("GET", CONTACTS, ref.auth("lumiere-full"));
    expect(failed === "network error" ? 0 : failed.status).toBe(500);
    ref.control.addFault({ delayMs: 50 });
    const started = performance.now();
    expect((await fetch(CONTACTS, { headers: ref.auth("lumiere-full") })).status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(49);
  });

  it("a delay honours the fetch's AbortSignal", async () => {
    ref.control.addFault({ delayMs: 10_000 });
    const controller = new AbortController();
    const pending = fetch(CONTACTS, { headers: ref.auth("lumiere-full"), signal: controller.signal });
    await vi.waitFor(() => expect(ref.control.faults()).toHaveLength(0));
    controller.abort();
    await expect(pending).rejects.toMatchObject({ name: "AbortError" });
    await vi.waitFor(() =>
      expect(ref.control.journal()[0]).toMatchObject({ status: null, fault: "fault_1" }),
    );
  });

  it("leaves requests outside the base URL to msw: the app's own handlers, then onUnhandledRequest", async () => {
    expect(await (await fetch(OWN)).json()).toEqual({ user: "ada" });
    await fetch("http://127.0.0.1:9/api/v1/contacts").catch(() => undefined);
    expect(unhandled).toEqual(["http://127.0.0.1:9/api/v1/contacts"]);
    expect(ref.control.journal()).toHaveLength(0);
  });
});

describe("handlers made from options, and a base URL with a path", () => {
  const proxied = setupServer();
  beforeAll(() => {
    server.close();
    proxied.listen({
      onUnhandledRequest: (request) => {
        throw new Error(`unhandled: ${request.url}`);
      },
    });
  });
  afterAll(() => {
    proxied.close();
    server.listen();
  });

  it("creates the reference from options on the first request, and takes the base path off", async () => {
    const now = "2027-03-01T09:00:00.000Z";
    proxied.use(
      ...referenceHandlers(
        { now: new Date(now), controlKey: "ctl_from-options-0123456789", log: () => {} },
        "http://app.test/backend/",
      ),
    );
    const created = await fetch("http://app.test/backend/api/v1/contacts", {
      method: "POST",
      headers: { ...ref.auth("lumiere-full"), "Content-Type": "application/json" },
      body: JSON.stringify({ type: "CLIENT", name: "Behind a proxy" }),
    });
    expect(created.status).toBe(201);
    // The reference's own clock started at `now`; the creation is within a minute of it.
    const { createdAt } = ((await created.json()) as { data: { createdAt: string } }).data;
    expect(Date.parse(createdAt) - Date.parse(now)).toBeLessThan(60_000);
    const journal = await fetch("http://app.test/backend/__control/journal", {
      headers: { Authorization: "Bearer ctl_from-options-0123456789" },
    });
    // The control surface answers only a Host that names the server (DNS rebinding): app.test does not.
    expect(journal.status).toBe(403);
    // Outside the base path: left to msw, here to an onUnhandledRequest that throws (msw answers
    // its own 500; the reference would have answered 401 to a request without a token).
    const outside = await fetch("http://app.test/api/v1/contacts");
    expect([outside.status, outside.statusText]).toEqual([500, "Unhandled Exception"]);
    expect(await outside.text()).toContain("unhandled: http://app.test/api/v1/contacts");
  });

  it("takes its base exactly: a longer port or path is someone else's", async () => {
    proxied.use(
      ...referenceHandlers(ref, "http://localhost:4010"),
      ...referenceHandlers(ref, "http://app.test/backend"),
    );
    const unhandledAt = async (url: string) => {
      const res = await fetch(url);
      return res.statusText === "Unhandled Exception" && (await res.text()).includes(`unhandled: ${url}`);
    };
    expect(await unhandledAt("http://localhost:40100/api/v1/contacts")).toBe(true);
    expect(await unhandledAt("http://app.test/backendX/api/v1/contacts")).toBe(true);
    expect(await unhandledAt("http://app.test/backen")).toBe(true);
    expect((await fetch("http://localhost:4010/api/v1/contacts")).status).toBe(401);
    expect((await fetch("http://app.test/backend/api/v1/contacts?limit=1")).status).toBe(401);
    // The base's path alone, with a query: the reference's root, its landing page, which answers only
    // a Host that names the server (DNS rebinding), as the control surface does above.
    expect((await fetch("http://app.test/backend?from=test")).status).toBe(403);
  });
});
