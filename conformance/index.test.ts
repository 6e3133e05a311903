import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { InvalidOptionError, TargetUnreachableError, checkBaseUrl, runConformance } from "./index.js";
import {
  closedBaseUrl,
  json,
  startLocalServer,
  testManifest,
  type LocalServer,
} from "./test-support/local.js";
import { CheckFailure, type Check } from "./types.js";

let server: LocalServer;
beforeAll(async () => {
  server = await startLocalServer((_req, res) => json(res, 200, { data: [] }));
});
afterAll(async () => {
  await server.close();
});

const noop: Check = {
  id: "noop",
  section: "§1 What the service does",
  clause: "§1.5",
  level: "MUST",
  rule: "r",
  run: async () => {},
};

/** A clock that moves only when the kit waits: what it waited is in `waits`. */
function virtual(start = Date.parse("2026-11-22T09:00:00Z")) {
  const waits: number[] = [];
  let t = start;
  return {
    waits,
    clock: {
      now: () => t,
      sleep: (ms: number) => {
        waits.push(ms);
        t += ms;
        return Promise.resolve();
      },
    },
  };
}

/** Sends `n` list requests with organization org_a's full token. */
const readsWithFullToken = (n: number): Check => ({
  id: "reads.full",
  section: "§4 Endpoints",
  clause: "§4.5",
  level: "MUST",
  rule: "a full token lists contacts",
  async run(ctx) {
    for (let i = 0; i < n; i += 1) {
      const ex = await ctx.http.send({
        method: "GET",
        path: "/api/v1/contacts",
        auth: ctx.tokens.get({ kind: "full" }),
      });
      if (ex.status !== 200)
        throw new CheckFailure("not 200", {
          key: `status ${ex.status}`,
          expected: "200",
          actual: String(ex.status),
          exchange: ex,
        });
    }
  },
});

describe("runConformance pacing", () => {
  it("takes the rate limit and its scope from the manifest, and --rate-limit over it", async () => {
    const { clock, waits } = virtual();
    const manifest = { ...testManifest(), rateLimit: { requests: 5, per: "address" as const } };
    const report = await runConformance({
      baseUrl: server.baseUrl,
      manifest,
      catalogue: [readsWithFullToken(6)],
      clock,
    });
    expect(report.options).toMatchObject({ rateLimit: 5, rateLimitPer: "address" });
    expect(report.pacing?.source).toBe("manifest");
    // Four requests a minute (a tenth kept in reserve): the probe and three reads, then a wait.
    expect(waits.length).toBeGreaterThan(0);
    const over = await runConformance({
      baseUrl: server.baseUrl,
      manifest,
      rateLimit: 50,
      catalogue: [noop],
      clock,
    });
    expect(over.options).toMatchObject({ rateLimit: 50, rateLimitPer: "address" });
    expect(over.pacing?.source).toBe("option");
  });

  it("counts how many requests each token sent", async () => {
    const report = await runConformance({
      baseUrl: server.baseUrl,
      manifest: testManifest(),
      catalogue: [readsWithFullToken(3)],
    });
    expect(report.pacing?.requestsByToken).toEqual({ "(no manifest token)": 1, "a-full": 3 });
  });

  it("meets an unexpected 429 calmly: waits what Retry-After says, sends that request again once, keeps the pace", async () => {
    let seen = 0;
    const strict = await startLocalServer((_req, res) => {
      seen += 1;
      // An earlier run's requests still fill the target's window: the third request is one too many.
      if (seen === 3)
        json(res, 429, { error: { code: "rate_limited", message: "slow down" } }, { "retry-after": "2" });
      else json(res, 200, { data: [] });
    });
    try {
      const { clock, waits } = virtual();
      const report = await runConformance({
        baseUrl: strict.baseUrl,
        manifest: testManifest(),
        catalogue: [readsWithFullToken(4)],
        clock,
      });
      expect(report.results.map((r) => r.outcome)).toEqual(["pass"]);
      expect(report.options.rateLimitPer).toBe("token");
      expect(report.pacing?.limited).toEqual({
        count: 1,
        resentAnswered: 1,
        resentLimited: 0,
        waitedMs: 2000,
        first: "GET /api/v1/contacts with a-full",
      });
      expect(report.pacing?.fellBack).toBeUndefined();
      expect(waits).toEqual([2000]);
    } finally {
      await strict.close();
    }
  });
});

describe("runConformance", () => {
  it("runs a catalogue against a target with the defaults, reporting the seed and every request", async () => {
    const report = await runConformance({
      baseUrl: `${server.baseUrl}/`,
      manifest: testManifest(),
      catalogue: [noop],
    });
    expect(report.target).toBe(server.baseUrl);
    expect(report.embedded).toBe(false);
    expect(report.options).toMatchObject({
      profile: "spec",
      strict: false,
      readOnly: false,
      numRuns: 25,
      rateLimit: 100,
      rateLimitPer: "token",
      rateWindowMs: 60_000,
    });
    expect(report.pacing?.source).toBe("default");
    expect(
      Number.isInteger(report.options.seed) && report.options.seed >= 0 && report.options.seed < 2 ** 32,
    ).toBe(true);
    // The reachability probe is a request of the run too.
    expect(report.requests).toBe(1);
    expect(report.results.map((r) => r.outcome)).toEqual(["pass"]);
  });

  it("throws a one-line TargetUnreachableError when nothing answers", async () => {
    const url = await closedBaseUrl();
    const error = await runConformance({ baseUrl: url, manifest: testManifest(), catalogue: [noop] }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(TargetUnreachableError);
    expect((error as Error).message).toBe(`cannot reach ${url}: connection refused (ECONNREFUSED)`);
  });

  it("refuses options it cannot run with", async () => {
    const run = (over: object) =>
      runConformance({ baseUrl: server.baseUrl, manifest: testManifest(), catalogue: [noop], ...over });
    await expect(run({ numRuns: 0 })).rejects.toThrow(InvalidOptionError);
    await expect(run({ rateLimit: 1.5 })).rejects.toThrow(/rate limit must be a positive integer/);
    await expect(run({ grep: "[" })).rejects.toThrow(/not a regular expression/);
    await expect(run({ baseUrl: "ftp://x" })).rejects.toThrow(
      'base URL "ftp://x": not an http:// or https:// URL',
    );
    expect(checkBaseUrl("https://api.example.com/v/")).toBe("https://api.example.com/v");
  });

  it("starts the embedded reference with a one-second window when no base URL is given, and closes it", async () => {
    let target = "";
    const readsContacts: Check = {
      id: "embedded.contacts",
      section: "§4 Endpoints",
      clause: "§4.5",
      level: "MUST",
      rule: "a full token lists contacts",
      async run(ctx) {
        const ex = await ctx.http.send({
          method: "GET",
          path: "/api/v1/contacts",
          auth: ctx.tokens.get({ kind: "full" }),
        });
        target = ex.curl;
        if (ex.status !== 200)
          throw new CheckFailure("not 200", {
            key: `status ${ex.status}`,
            expected: "200",
            actual: String(ex.status),
          });
      },
    };
    const report = await runConformance({ catalogue: [readsContacts], seed: 5, rateLimit: 40 });
    expect(report.embedded).toBe(true);
    expect(report.target).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(report.options).toMatchObject({ seed: 5, rateLimit: 40, rateWindowMs: 1000 });
    expect(report.results[0]?.outcome).toBe("pass");
    expect(target).toContain(report.target);
    const after = await fetch(`${report.target}/api/v1/contacts`).catch((e: unknown) => e);
    expect(after).toBeInstanceOf(TypeError);
  });
});
