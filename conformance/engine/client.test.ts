import { afterEach, describe, expect, it } from "vitest";
import { FetchHttpClient, buildUrl } from "./client.js";
import { RequestError } from "../failures.js";
import { Pacer, RatePacer } from "./pacer.js";
import {
  closedBaseUrl,
  json,
  nth,
  startLocalServer,
  testManifest,
  type LocalServer,
  echoServer,
} from "../test-support/local.js";

const manifest = testManifest();
const fullToken = nth(manifest.tokens, 0);

let server: LocalServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function client(baseUrl: string, extra: Partial<ConstructorParameters<typeof FetchHttpClient>[0]> = {}) {
  const sleeps: number[] = [];
  const http = new FetchHttpClient({
    baseUrl,
    pacer: new Pacer({ rateLimit: 100, windowMs: 60_000 }),
    tokens: manifest.tokens,
    sleep: (ms) => {
      sleeps.push(ms);
      return Promise.resolve();
    },
    ...extra,
  });
  return { http, sleeps };
}

describe("buildUrl", () => {
  it("joins base and path, repeats array parameters and keeps the order given", () => {
    expect(buildUrl("http://h:1/", "/api/v1/contacts")).toBe("http://h:1/api/v1/contacts");
    expect(buildUrl("http://h:1/base", "/api/v1/x", { limit: "5", status: ["PAID", "SENT"], a: "1" })).toBe(
      "http://h:1/base/api/v1/x?limit=5&status=PAID&status=SENT&a=1",
    );
  });

  it("encodes keys and values, and appends to a path that already has a query", () => {
    expect(buildUrl("http://h", "/p?x=1", { "a b": "2024-01-01T00:00:00.000Z", c: "&=+" })).toBe(
      "http://h/p?x=1&a%20b=2024-01-01T00%3A00%3A00.000Z&c=%26%3D%2B",
    );
  });
});

describe("FetchHttpClient: requests", () => {
  it("sends a manifest token as a bearer token and a JSON body with its content type", async () => {
    server = await echoServer();
    const { http } = client(server.baseUrl);
    const ex = await http.send({
      method: "POST",
      path: "/api/v1/contacts",
      auth: fullToken,
      json: { name: "é" },
    });
    const seen = nth(server.seen, 0);
    expect(seen.headers.authorization).toBe(`Bearer ${fullToken.token}`);
    expect(seen.headers["content-type"]).toBe("application/json");
    expect(seen.body.toString("utf8")).toBe('{"name":"é"}');
    expect(ex.status).toBe(200);
    expect(ex.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect((ex.json as { method: string }).method).toBe("POST");
    expect(JSON.parse(ex.text)).toEqual(ex.json);
  });

  it("sends a raw Authorization header as is, and a raw body with no content type of its own", async () => {
    server = await echoServer();
    const { http } = client(server.baseUrl);
    await http.send({ method: "POST", path: "/p", auth: { header: "bearer  x" }, rawBody: '{"a":1.10}' });
    const seen = nth(server.seen, 0);
    expect(seen.headers.authorization).toBe("bearer  x");
    expect(seen.headers["content-type"]).toBeUndefined();
    expect(seen.body.toString("utf8")).toBe('{"a":1.10}');
  });

  it("lets the check's headers override the content type and send none with auth null", async () => {
    server = await echoServer();
    const { http } = client(server.baseUrl);
    await http.send({
      method: "POST",
      path: "/p",
      auth: null,
      json: { a: 1 },
      headers: { "Content-Type": "text/plain" },
    });
    expect(nth(server.seen, 0).headers["content-type"]).toBe("text/plain");
    expect(nth(server.seen, 0).headers.authorization).toBeUndefined();
  });

  it("records every exchange in order and counts requests; a body that is not JSON has json undefined", async () => {
    server = await startLocalServer((req, res) => {
      res.writeHead(req.url === "/text" ? 404 : 200, { "X-Custom": "Yes" });
      res.end(req.url === "/text" ? "not json" : "[1,2]");
    });
    const { http } = client(server.baseUrl);
    await http.send({ method: "GET", path: "/json" });
    await http.sendUnpaced({ method: "GET", path: "/text" });
    const [a, b] = http.history();
    expect(a?.json).toEqual([1, 2]);
    expect(a?.headers["x-custom"]).toBe("Yes");
    expect(b?.status).toBe(404);
    expect(b?.json).toBeUndefined();
    expect(b?.text).toBe("not json");
    expect(http.requests).toBe(2);
  });

  it("does not follow redirects: the redirect is the answer", async () => {
    server = await startLocalServer((_req, res) => {
      res.writeHead(301, { location: "/elsewhere" });
      res.end();
    });
    const { http } = client(server.baseUrl);
    const ex = await http.send({ method: "GET", path: "/api/v1/contacts/" });
    expect(ex.status).toBe(301);
    expect(server.seen).toHaveLength(1);
  });
});

describe("FetchHttpClient: 429 and failures", () => {
  /** Answers 429 `times` times (with `retryAfter` when given), then 200. */
  async function limitedServer(times: number, retryAfter?: string): Promise<LocalServer> {
    let left = times;
    return startLocalServer((_req, res) => {
      if (left > 0) {
        left -= 1;
        json(
          res,
          429,
          { error: { code: "rate_limited" } },
          retryAfter === undefined ? {} : { "Retry-After": retryAfter },
        );
      } else json(res, 200, { data: [] });
    });
  }

  it("waits out an unexpected 429 for Retry-After seconds and sends the request again, once", async () => {
    server = await limitedServer(1, "2");
    const { http, sleeps } = client(server.baseUrl);
    const ex = await http.send({ method: "GET", path: "/p", auth: fullToken });
    expect(ex.status).toBe(200);
    expect(sleeps).toEqual([2000]);
    expect(http.history().map((e) => e.status)).toEqual([429, 200]);
    expect(http.requests).toBe(2);
    expect(http.limits).toEqual({
      count: 1,
      resentAnswered: 1,
      resentLimited: 0,
      waitedMs: 2000,
      first: "GET /* with a-full",
    });
  });

  it("sends a request again only once: a second 429 is the answer the check gets", async () => {
    server = await limitedServer(10, "1");
    const { http, sleeps } = client(server.baseUrl);
    const ex = await http.send({ method: "GET", path: "/p" });
    expect(ex.status).toBe(429);
    expect(sleeps).toEqual([1000]);
    expect(server.seen).toHaveLength(2);
    expect(http.limits).toMatchObject({ count: 1, resentAnswered: 0, resentLimited: 1 });
  });

  it("waits one window when Retry-After is missing, and never more than a window", async () => {
    server = await limitedServer(1, "3600");
    const capped = client(server.baseUrl);
    await capped.http.send({ method: "GET", path: "/p" });
    expect(capped.sleeps).toEqual([60_000]);
    await server.close();

    server = await limitedServer(1);
    const missing = client(server.baseUrl);
    await missing.http.send({ method: "GET", path: "/p" });
    expect(missing.sleeps).toEqual([60_000]);
  });

  it("says why it waits: the route, the token and what the target asked", async () => {
    server = await limitedServer(1, "2");
    const reasons: string[] = [];
    const { http } = client(server.baseUrl, {
      sleep: (_ms, reason) => {
        reasons.push(reason ?? "");
        return Promise.resolve();
      },
    });
    await http.send({ method: "GET", path: "/api/v1/contacts", auth: fullToken });
    expect(reasons).toEqual([
      "the target answered 429 to GET /api/v1/contacts with a-full (Retry-After); it is sent again once",
    ]);
  });

  it("sends a refused request at once with an equivalent token that has room, and waits only when there is none", async () => {
    const spare = { ...fullToken, label: "a-full-2", token: "tst_aFullSpare0002" };
    const withSpare = { ...manifest, tokens: [...manifest.tokens, spare] };
    // An earlier run spent a-full's budget; its equivalent has room.
    server = await startLocalServer((req, res) => {
      if (req.headers.authorization === `Bearer ${fullToken.token}`)
        json(res, 429, { error: { code: "rate_limited" } }, { "Retry-After": "30" });
      else json(res, 200, { data: [] });
    });
    const pacer = new RatePacer({ rateLimit: 100, windowMs: 60_000, per: "token", manifest: withSpare });
    const { http, sleeps } = client(server.baseUrl, { pacer, tokens: withSpare.tokens });
    const ex = await http.send({ method: "GET", path: "/p", auth: fullToken });
    expect(ex.status).toBe(200);
    expect(sleeps).toEqual([]);
    expect(http.history().map((e) => [e.status, e.request.auth])).toEqual([
      [429, fullToken],
      [200, spare],
    ]);
    expect(http.limits).toMatchObject({ count: 1, resentAnswered: 1, waitedMs: 0 });
    // A token without an equivalent waits as the target asked.
    const alone = nth(manifest.tokens, 1);
    await server.close();
    server = await startLocalServer((_req, res) =>
      json(res, 429, { error: { code: "rate_limited" } }, { "Retry-After": "2" }),
    );
    const again = client(server.baseUrl, { pacer, tokens: withSpare.tokens });
    await again.http.send({ method: "GET", path: "/p", auth: alone });
    expect(again.sleeps).toEqual([2000]);
  });

  it("sends once when asked (the preflight): a 429 is the answer, neither waited out nor sent again", async () => {
    server = await limitedServer(1, "30");
    const { http, sleeps } = client(server.baseUrl);
    const ex = await http.sendOnce({ method: "GET", path: "/p", auth: fullToken });
    expect(ex.status).toBe(429);
    expect(sleeps).toEqual([]);
    expect(server.seen).toHaveLength(1);
    expect(http.limits).toBeUndefined();
  });

  it("reads a Retry-After given as an HTTP date", () => {
    const { http } = client("http://127.0.0.1:1", { now: () => Date.parse("2025-01-01T00:00:00Z") });
    expect(http.retryDelayMs("Wed, 01 Jan 2025 00:00:05 GMT")).toBe(5000);
    expect(http.retryDelayMs("Tue, 31 Dec 2024 23:00:00 GMT")).toBe(0);
    expect(http.retryDelayMs("soon")).toBe(60_000);
  });

  it("never waits or retries an unpaced request, but counts it in the pacing window", async () => {
    server = await limitedServer(5, "1");
    const pacer = new Pacer({ rateLimit: 100, windowMs: 60_000 });
    const { http, sleeps } = client(server.baseUrl, { pacer });
    const ex = await http.sendUnpaced({ method: "GET", path: "/p" });
    expect(ex.status).toBe(429);
    expect(sleeps).toEqual([]);
    expect(pacer.total).toBe(1);
  });

  it("turns a request left unanswered into a RequestError with its curl, not a hang", async () => {
    server = await startLocalServer(() => {
      /* never answers */
    });
    const { http } = client(server.baseUrl, { timeoutMs: 150 });
    const error = await http.send({ method: "GET", path: "/slow", auth: fullToken }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RequestError);
    const failure = error as RequestError;
    expect(failure.kind).toBe("timeout");
    expect(failure.actual).toBe("no answer within 150 ms");
    expect(failure.curl).toContain("/slow");
    expect(failure.curl).not.toContain(fullToken.token);
    expect(http.history()).toHaveLength(0);
  });

  it("names a refused connection", async () => {
    const { http } = client(await closedBaseUrl());
    const error = await http.send({ method: "GET", path: "/" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RequestError);
    expect((error as RequestError).actual).toBe("connection refused (ECONNREFUSED)");
  });
});

describe("FetchHttpClient: what every request carries", () => {
  it("sends the run's Origin unless the request names its own, and stamps each exchange with when it was sent and answered", async () => {
    server = await echoServer();
    let now = 1000;
    const { http } = client(server.baseUrl, { origin: "https://kit.example", now: () => (now += 5) });
    const plain = await http.send({ method: "GET", path: "/a" });
    const own = await http.send({ method: "GET", path: "/b", headers: { origin: "https://other.example" } });
    const seen = (ex: typeof plain) => (ex.json as { headers: Record<string, string> }).headers.origin;
    expect(seen(plain)).toBe("https://kit.example");
    expect(seen(own)).toBe("https://other.example");
    expect(plain.curl).toContain("-H 'Origin: https://kit.example'");
    expect([plain.sentAt, plain.answeredAt, own.sentAt, own.answeredAt]).toEqual([1005, 1010, 1015, 1020]);
  });
});
