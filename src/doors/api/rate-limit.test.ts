import { request as httpRequest } from "node:http";
import request from "supertest";
import { describe, expect } from "vitest";
import {
  expectContactRefused,
  expectData,
  expectError,
  referenceTest,
  type TestReference,
} from "../../test-support/reference.js";

const LIMIT = 5;
const WINDOW_MS = 60_000;
const CONTACTS = "/api/v1/contacts";

const it = referenceTest({ rateLimit: { limit: LIMIT, windowMs: WINDOW_MS } });

const get = (ref: TestReference, label?: string, path = CONTACTS) => {
  const req = request(ref.app).get(path);
  return label === undefined ? req : req.set(ref.auth(label));
};

/** Spends the whole allowance of a token (or of the caller's address, without one). */
async function exhaust(ref: TestReference, label?: string) {
  for (let i = 0; i < LIMIT; i += 1) expect((await get(ref, label)).status).not.toBe(429);
}

/** The parameters of a structured header such as `"per-token"; r=0; t=60`. */
function params(header: unknown): Record<string, string> {
  if (typeof header !== "string") return {};
  return Object.fromEntries(
    header
      .split(";")
      .slice(1)
      .map((p) => p.trim().split("="))
      .map(([k = "", v = ""]) => [k, v]),
  );
}

describe("rate limit (§8, spec-gaps #21)", () => {
  it(`lets ${LIMIT} requests through and refuses the next with 429 rate_limited`, async ({ ref }) => {
    for (let i = 0; i < LIMIT; i += 1) expectData(await get(ref, "lumiere-full"), 200);
    const res = await get(ref, "lumiere-full");
    expectError(res, 429, "rate_limited");
    expect(res.headers["access-control-allow-origin"]).toBe("*");
  });

  it("answers a 429 with Retry-After in whole seconds, RateLimit and RateLimit-Policy", async ({ ref }) => {
    await exhaust(ref, "lumiere-full");
    const res = await get(ref, "lumiere-full");
    expect(res.status).toBe(429);
    expect(res.headers["retry-after"]).toMatch(/^\d+$/);
    expect(res.headers.ratelimit).toEqual(expect.any(String));
    expect(params(res.headers.ratelimit).r).toBe("0");
    expect(params(res.headers["ratelimit-policy"])).toMatchObject({
      q: String(LIMIT),
      w: String(WINDOW_MS / 1000),
    });
  });

  it.for([
    { outcome: "200", label: "lumiere-full" as string | undefined, path: CONTACTS },
    { outcome: "401", label: undefined, path: CONTACTS },
    { outcome: "403", label: "lumiere-no-scope", path: CONTACTS },
    { outcome: "404", label: "lumiere-full", path: "/api/v1/nothing" },
  ])("sends RateLimit and RateLimit-Policy on a counted $outcome", async ({ label, path }, { ref }) => {
    const res = await get(ref, label, path);
    expect(params(res.headers.ratelimit).r).toBe(String(LIMIT - 1));
    expect(params(res.headers["ratelimit-policy"]).q).toBe(String(LIMIT));
  });

  it("says in RateLimit when the oldest counted request leaves the window, on the server's clock", async ({
    ref,
  }) => {
    expect(params((await get(ref, "lumiere-full")).headers.ratelimit).t).toBe(String(WINDOW_MS / 1000));
    ref.clock.advance(10_000);
    expect(params((await get(ref, "lumiere-full")).headers.ratelimit).t).toBe(String(WINDOW_MS / 1000 - 10));
  });

  it("counts down the remaining allowance in RateLimit", async ({ ref }) => {
    const remaining: string[] = [];
    for (let i = 0; i < LIMIT; i += 1)
      remaining.push(params((await get(ref, "lumiere-full")).headers.ratelimit).r ?? "");
    expect(remaining).toEqual(["4", "3", "2", "1", "0"]);
  });

  // The clock is the server's: a client told to wait must be served once it has waited that long.
  it("says in Retry-After how long until a slot frees, on the server's clock", async ({ ref }) => {
    await exhaust(ref, "lumiere-full");
    const res = await get(ref, "lumiere-full");
    const seconds = Number(res.headers["retry-after"]);
    expect(seconds).toBeGreaterThan(0);
    expect(seconds).toBeLessThanOrEqual(WINDOW_MS / 1000);
    expect(Number(params(res.headers.ratelimit).t)).toBe(seconds);
    ref.clock.advance(seconds * 1000);
    expectData(await get(ref, "lumiere-full"), 200);
  });

  it("restores service once the window has passed, and not one millisecond before", async ({ ref }) => {
    await exhaust(ref, "lumiere-full");
    ref.clock.advance(WINDOW_MS - 1);
    expectError(await get(ref, "lumiere-full"), 429, "rate_limited");
    ref.clock.advance(1);
    expectData(await get(ref, "lumiere-full"), 200);
  });

  it("rolls: a request frees its slot one window after it was made", async ({ ref }) => {
    expectData(await get(ref, "lumiere-full"), 200);
    ref.clock.advance(30_000);
    for (let i = 1; i < LIMIT; i += 1) expectData(await get(ref, "lumiere-full"), 200);
    expectError(await get(ref, "lumiere-full"), 429, "rate_limited");
    ref.clock.advance(30_000);
    expectData(await get(ref, "lumiere-full"), 200);
    expectError(await get(ref, "lumiere-full"), 429, "rate_limited");
  });

  it("limits each token on its own", async ({ ref }) => {
    await exhaust(ref, "lumiere-full");
    expectError(await get(ref, "lumiere-full"), 429, "rate_limited");
    expectData(await get(ref, "boreal-full"), 200);
    // Another token of the same organization has its own allowance too.
    expectData(await get(ref, "lumiere-contacts-read"), 200);
  });

  it("counts every request, whatever its outcome", async ({ ref }) => {
    const full = ref.auth("lumiere-full");
    expect((await request(ref.app).get(`${CONTACTS}?limit=0`).set(full)).status).toBe(400);
    expect((await request(ref.app).get("/api/v1/nothing").set(full)).status).toBe(404);
    expect((await request(ref.app).put(CONTACTS).set(full)).status).toBe(404);
    expect((await request(ref.app).post(CONTACTS).set(full).send({ type: "CLIENT", name: "x" })).status).toBe(
      201,
    );
    expect((await request(ref.app).get(CONTACTS).set(full)).status).toBe(200);
    expectError(await request(ref.app).get(CONTACTS).set(full), 429, "rate_limited");
  });

  it("answers 429 before anything else can fail (spec-gaps #26)", async ({ ref }) => {
    await exhaust(ref, "lumiere-full");
    const full = ref.auth("lumiere-full");
    expectError(await request(ref.app).get("/api/v1/nothing").set(full), 429, "rate_limited");
    expectError(await request(ref.app).get(`${CONTACTS}?limit=0`).set(full), 429, "rate_limited");
    expectError(
      await request(ref.app).post(CONTACTS).set(full).set("Content-Type", "application/json").send("{"),
      429,
      "rate_limited",
    );
  });

  it("stores nothing for a rate-limited POST", async ({ ref }) => {
    await exhaust(ref, "lumiere-full");
    await expectContactRefused(ref, "lumiere-full", 429, "rate_limited");
  });

  it("limits a revoked token's requests too: 429 before 401", async ({ ref }) => {
    await exhaust(ref, "lumiere-revoked");
    expectError(await get(ref, "lumiere-revoked"), 429, "rate_limited");
    expectData(await get(ref, "lumiere-full"), 200);
  });

  it("still answers pre-flights when the allowance is spent", async ({ ref }) => {
    await exhaust(ref);
    const res = await request(ref.app)
      .options(CONTACTS)
      .set("Origin", "https://app.example.com")
      .set("Access-Control-Request-Method", "GET");
    expect(res.status).toBe(204);
  });

  it("counts rate-limited requests of an active token in its usage", async ({ ref }) => {
    await exhaust(ref, "lumiere-full");
    ref.clock.advance(1_000);
    expectError(await get(ref, "lumiere-full"), 429, "rate_limited");
    const view = ref.tokens.get(ref.tokenId("lumiere-full"));
    expect(view?.requestCount).toBe(LIMIT + 1);
    expect(view?.lastUsedAt?.toISOString()).toBe(ref.clock.now().toISOString());
  });
});

/** The reference on a bare Node server, whose port each test of the block takes. */
const served = it.extend("port", ({ ref, serveBare }) => serveBare(ref.app));

describe("rate limit without a token: per client address", () => {
  /** GETs from a given loopback address, so that the server sees distinct clients. */
  function getFrom(port: number, localAddress: string, headers: Record<string, string> = {}) {
    return new Promise<{ status: number; body: unknown }>((resolve, reject) => {
      const req = httpRequest({ host: "127.0.0.1", port, path: CONTACTS, localAddress, headers }, (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => (text += chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as unknown }));
      });
      req.on("error", reject);
      req.end();
    });
  }

  served(
    "limits requests without a token from one address, then answers 429 instead of 401",
    async ({ port }) => {
      for (let i = 0; i < LIMIT; i += 1) expect((await getFrom(port, "127.0.0.1")).status).toBe(401);
      expect(await getFrom(port, "127.0.0.1")).toMatchObject({
        status: 429,
        body: { error: { code: "rate_limited" } },
      });
    },
  );

  served("counts unknown and malformed tokens with the address", async ({ port }) => {
    const unknown = { Authorization: `Bearer acct_${"Q".repeat(40)}` };
    for (let i = 0; i < LIMIT; i += 1) {
      expect(
        (await getFrom(port, "127.0.0.1", i % 2 === 0 ? unknown : { Authorization: "Basic x" })).status,
      ).toBe(401);
    }
    expect((await getFrom(port, "127.0.0.1")).status).toBe(429);
  });

  served("does not limit another address", async ({ port }) => {
    for (let i = 0; i <= LIMIT; i += 1) await getFrom(port, "127.0.0.1");
    expect((await getFrom(port, "127.0.0.1")).status).toBe(429);
    expect((await getFrom(port, "127.0.0.2")).status).toBe(401);
  });

  served(
    "does not limit a token used from an address whose anonymous allowance is spent",
    async ({ ref, port }) => {
      for (let i = 0; i <= LIMIT; i += 1) await getFrom(port, "127.0.0.1");
      expect((await getFrom(port, "127.0.0.1", ref.auth("lumiere-full"))).status).toBe(200);
    },
  );

  served("limits a token across addresses", async ({ ref, port }) => {
    for (let i = 0; i < LIMIT; i += 1) {
      expect(
        (await getFrom(port, i % 2 === 0 ? "127.0.0.1" : "127.0.0.2", ref.auth("lumiere-full"))).status,
      ).toBe(200);
    }
    expect((await getFrom(port, "127.0.0.3", ref.auth("lumiere-full"))).status).toBe(429);
  });
});
