import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FetchHttpClient } from "./client.js";
import { Pacer } from "./pacer.js";
import { compileGrep, failsRun, makeMarker, runChecks, selectChecks, type RunnerInput } from "./runner.js";
import {
  closedBaseUrl,
  json,
  nth,
  startLocalServer,
  testManifest,
  type LocalServer,
} from "../test-support/local.js";
import {
  CheckFailure,
  LEVELS,
  type Check,
  type CheckResult,
  type Level,
  type RunOptions,
  type SharedSlot,
} from "../types.js";

let server: LocalServer;
beforeAll(async () => {
  server = await startLocalServer((req, res) => {
    if (req.url.startsWith("/boom")) json(res, 500, { error: { code: "internal_error" } });
    else json(res, 200, { data: [] });
  });
});
afterAll(async () => {
  await server.close();
});

const options = (over: Partial<RunOptions> = {}): RunOptions => ({
  profile: "spec",
  strict: false,
  readOnly: false,
  seed: 1234,
  numRuns: 5,
  rateLimit: 1000,
  rateLimitPer: "address",
  rateWindowMs: 1000,
  ...over,
});

function httpFor(baseUrl: string): FetchHttpClient {
  return new FetchHttpClient({
    baseUrl,
    pacer: new Pacer({ rateLimit: 1000, windowMs: 1000 }),
  });
}

async function run(
  catalogue: readonly Check[],
  over: Partial<RunnerInput> & { opts?: Partial<RunOptions> } = {},
) {
  const { opts, ...rest } = over;
  return runChecks({
    catalogue,
    http: httpFor(server.baseUrl),
    manifest: testManifest(),
    options: options(opts),
    ...rest,
  });
}

const check = (id: string, level: Level, body: Check["run"], extra: Partial<Check> = {}): Check => ({
  id,
  section: "§4 Endpoints",
  clause: "§4.5",
  level,
  rule: `rule of ${id}`,
  run: body,
  ...extra,
});

const passing = (id: string, level: Level = "MUST", extra: Partial<Check> = {}): Check =>
  check(
    id,
    level,
    async (ctx) => void (await ctx.http.send({ method: "GET", path: "/api/v1/contacts" })),
    extra,
  );

const failing = (id: string, level: Level, extra: Partial<Check> = {}): Check =>
  check(
    id,
    level,
    async (ctx) => {
      const ex = await ctx.http.send({
        method: "GET",
        path: "/boom",
        auth: ctx.tokens.get({ kind: "full" }),
      });
      throw new CheckFailure("the answer is a 500", {
        key: "status 500 | GET /boom",
        cause: "response.no-5xx",
        expected: "200",
        actual: String(ex.status),
        exchange: ex,
      });
    },
    extra,
  );

const byId = (results: readonly CheckResult[]): Record<string, CheckResult> =>
  Object.fromEntries(results.map((r) => [r.id, r]));

describe("failsRun", () => {
  it.each(
    LEVELS.flatMap((level) => [false, true].map((strict) => ({ level, strict }))).map(
      ({ level, strict }) => ({
        level,
        strict,
        expected: level === "MUST" || level === "REFERENCE" || (level === "SHOULD" && strict),
      }),
    ),
  )("a $level failure with strict=$strict fails the run: $expected", ({ level, strict, expected }) => {
    expect(failsRun(level, "fail", strict)).toBe(expected);
    for (const outcome of ["pass", "skip", "observed"] as const)
      expect(failsRun(level, outcome, strict)).toBe(false);
  });

  it.each([
    { profile: "spec", strict: false, fails: ["must"] },
    { profile: "spec", strict: true, fails: ["must", "should"] },
    { profile: "reference", strict: false, fails: ["must", "reference"] },
    { profile: "reference", strict: true, fails: ["must", "should", "reference"] },
  ] as const)(
    "profile $profile, strict $strict: failing checks fail the run: $fails",
    async ({ profile, strict, fails }) => {
      const catalogue = [
        failing("must", "MUST"),
        failing("should", "SHOULD"),
        failing("reference", "REFERENCE"),
        failing("probe", "PROBE"),
      ];
      const results = byId(await run(catalogue, { opts: { profile, strict } }));
      expect(
        Object.values(results)
          .filter((r) => r.failsRun)
          .map((r) => r.id),
      ).toEqual(fails);
      expect(results.should?.outcome).toBe("fail");
      // A PROBE never fails: what went wrong is its observation.
      expect(results.probe?.outcome).toBe("observed");
      expect(results.probe?.observations[0]).toEqual({
        key: "failed | status 500 | GET /boom",
        text: "the answer is a 500 (expected 200; got 500)",
      });
      // REFERENCE checks outside the reference profile are neither run nor listed.
      expect(results.reference === undefined).toBe(profile === "spec");
    },
  );
});

describe("runChecks", () => {
  it("reports a failure with the rule, expected and actual answers and the curl of its exchange", async () => {
    const [result] = await run([failing("f", "MUST")]);
    expect(result?.outcome).toBe("fail");
    expect(result?.failure).toMatchObject({
      message: "the answer is a 500",
      expected: "200",
      actual: "500",
      status: 500,
    });
    expect(result?.failure?.curl).toMatch(/^curl .*\/boom -H "Authorization: Bearer \$\{TOKEN\}"/);
    expect(result?.failure?.curl).not.toContain(nth(testManifest().tokens, 0).token);
    expect(result?.requests).toBe(1);
  });

  it("turns any other error into a failure with the last exchange, and goes on", async () => {
    const results = await run([
      check("throws", "MUST", async (ctx) => {
        await ctx.http.send({ method: "GET", path: "/boom/last" });
        throw new TypeError("x is undefined");
      }),
      passing("after"),
    ]);
    expect(results.map((r) => r.outcome)).toEqual(["fail", "pass"]);
    expect(results[0]?.failure).toMatchObject({
      key: "stopped | TypeError",
      cause: "error",
      message: "the check stopped on an error: TypeError: x is undefined",
    });
    expect(results[0]?.failure?.curl).toContain("/boom/last");
    expect(results[0]?.failsRun).toBe(true);
  });

  it("reports a failure's stable key and the rule it broke, a foundation's or the check's own", async () => {
    const [foundation, own] = await run([
      failing("five-hundred", "MUST"),
      check("own", "MUST", async () => {
        throw new CheckFailure("too many", { key: "more items than the limit", expected: "5", actual: "7" });
      }),
    ]);
    expect(foundation?.failure).toMatchObject({ key: "status 500 | GET /boom", cause: "response.no-5xx" });
    expect(own?.failure).toMatchObject({ key: "more items than the limit", cause: "rule" });
  });

  it("uses the check's last exchange when a CheckFailure carries none", async () => {
    const [result] = await run([
      check("no-exchange", "SHOULD", async (ctx) => {
        await ctx.http.send({ method: "GET", path: "/first" });
        await ctx.http.send({ method: "GET", path: "/second" });
        throw new CheckFailure("order", {
          key: "order",
          expected: "a",
          actual: "b",
          replay: "seed 1, path 0:1",
        });
      }),
    ]);
    expect(result?.failure?.curl).toContain("/second");
    expect(result?.failure?.replay).toBe("seed 1, path 0:1");
    expect(result?.failsRun).toBe(false);
  });

  it("replays the whole sequence a failure names, in order, as sent, each token named once", async () => {
    const [a, b] = testManifest().tokens;
    const [result] = await run([
      check("sequence", "MUST", async (ctx) => {
        const post = await ctx.http.send({
          method: "POST",
          path: "/create",
          auth: a,
          json: { unitPrice: 0 },
        });
        await ctx.http.send({ method: "GET", path: "/unrelated" });
        const read = await ctx.http.send({ method: "GET", path: "/read", auth: b });
        await ctx.http.send({ method: "GET", path: "/again", auth: a });
        throw new CheckFailure("read back otherwise", {
          key: "read back otherwise",
          expected: "0.0000",
          actual: "1.0000",
          exchange: read,
          evidence: [post, read],
        });
      }),
    ]);
    const lines = result?.failure?.curl?.split("\n") ?? [];
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^curl .* -X POST .*\/create .*\$\{TOKEN\}.*--data-binary '\{"unitPrice":0\}'$/);
    expect(lines[1]).toMatch(/^curl .*\/read -H "Authorization: Bearer \$\{TOKEN_2\}"$/);
    expect(lines[2]).toBe('# $TOKEN = manifest token "a-full", $TOKEN_2 = manifest token "a-contacts-read"');
    expect(result?.failure?.status).toBe(200);
  });

  it("fails a check whose target stops answering, with the unanswered request", async () => {
    const [result] = await runChecks({
      catalogue: [passing("gone")],
      http: httpFor(await closedBaseUrl()),
      manifest: testManifest(),
      options: options(),
    });
    expect(result?.outcome).toBe("fail");
    expect(result?.failure).toMatchObject({
      key: "no answer (network) | GET /api/v1/contacts",
      cause: "response.answered",
      actual: "connection refused (ECONNREFUSED)",
    });
    expect(result?.failure?.curl).toContain("/api/v1/contacts");
    expect(result?.failure?.status).toBeUndefined();
  });

  it("skips a check whose token kind the manifest lacks, naming the kind", async () => {
    const manifest = testManifest();
    const results = await runChecks({
      catalogue: [
        check("needs-revoked", "MUST", async (ctx) => void ctx.tokens.get({ kind: "revoked" })),
        check("needs-plan", "MUST", async (ctx) => void ctx.tokens.get({ kind: "no-api-plan" })),
        check("own-skip", "MUST", async (ctx) => ctx.skip("nothing to see")),
      ],
      http: httpFor(server.baseUrl),
      manifest: { ...manifest, tokens: manifest.tokens.filter((t) => t.state === "active") },
      options: options(),
    });
    expect(results.map((r) => [r.outcome, r.skipReason])).toEqual([
      ["skip", "the token manifest has no revoked token"],
      ["pass", undefined],
      ["skip", "nothing to see"],
    ]);
    expect(results.every((r) => !r.failsRun)).toBe(true);
  });

  it("runs the coverage phase first and the final phase after all others, each group in catalogue order", async () => {
    const order: string[] = [];
    const mark = (id: string, extra: Partial<Check> = {}): Check =>
      check(id, "MUST", async () => void order.push(id), extra);
    const results = await run([
      mark("a"),
      mark("burst", { phase: "final" }),
      mark("limit-forms", { phase: "coverage" }),
      mark("b"),
      mark("no-5xx", { phase: "final" }),
      mark("body-forms", { phase: "coverage" }),
      mark("c"),
    ]);
    expect(order).toEqual(["limit-forms", "body-forms", "a", "b", "c", "burst", "no-5xx"]);
    expect(results.map((r) => r.id)).toEqual(order);
  });

  it("skips writing checks under --read-only, with the reason", async () => {
    const results = await run([passing("reads"), passing("writes", "MUST", { writes: true })], {
      opts: { readOnly: true },
    });
    expect(results.map((r) => r.outcome)).toEqual(["pass", "skip"]);
    expect(results[1]?.skipReason).toMatch(/--read-only/);
    expect(results[1]?.requests).toBe(0);
  });

  it("runs slow checks only with --slow or a --grep naming their id", async () => {
    const catalogue = [
      passing("limits.restore", "MUST", { slow: true, section: "§8 Limits" }),
      passing("other"),
    ];
    const outcome = async (extra: Partial<RunnerInput>) =>
      byId(await run(catalogue, extra))["limits.restore"];
    expect((await outcome({}))?.skipReason).toMatch(/--slow/);
    expect((await outcome({ slow: true }))?.outcome).toBe("pass");
    expect((await outcome({ grep: "RESTORE" }))?.outcome).toBe("pass");
    // Matching the section only is not asking for it by name.
    expect((await outcome({ grep: "§8" }))?.outcome).toBe("skip");
  });

  it("says why a slow check --grep selected by its section or rule is skipped", async () => {
    const catalogue = [passing("limits.restore", "MUST", { slow: true, rule: "waits out the limit" })];
    const [result] = await run(catalogue, { grep: "waits" });
    expect(result?.skipReason).toBe(
      "slow: --grep matched its rule, not its id; it runs with --slow, or with a --grep that names its id",
    );
  });

  it("runs, before a check --grep selects, the checks whose requests it judges (needs), and says so", async () => {
    const order: string[] = [];
    const mark = (id: string, extra: Partial<Check> = {}): Check =>
      check(id, "MUST", async () => void order.push(id), extra);
    const catalogue = [
      mark("unrelated"),
      mark("limit.burst", { phase: "final", slow: true }),
      mark("limit.not-early", { phase: "final", rule: "no 429 before the limit", needs: ["limit.burst"] }),
    ];
    const results = await run(catalogue, { grep: "before" });
    expect(order).toEqual(["limit.burst", "limit.not-early"]);
    expect(results.map((r) => [r.id, r.outcome, r.ranFor])).toEqual([
      ["limit.burst", "pass", ["limit.not-early"]],
      ["limit.not-early", "pass", undefined],
    ]);
    // Without --grep, or selected by it, a check runs for no one.
    expect((await run(catalogue, { grep: "burst|before" })).map((r) => r.ranFor)).toEqual([
      undefined,
      undefined,
    ]);
  });

  it("filters by --grep on id, section and rule, any case, leaving the rest unlisted", async () => {
    const catalogue = [
      passing("contacts.list"),
      passing("auth.revoked", "MUST", { section: "§5 Authentication" }),
      passing("limits.page", "MUST", { rule: "A list returns at most LIMIT items" }),
    ];
    const ids = async (grep: string) => (await run(catalogue, { grep })).map((r) => r.id);
    expect(await ids("^CONTACTS\\.")).toEqual(["contacts.list"]);
    expect(await ids("authentication")).toEqual(["auth.revoked"]);
    expect(await ids("at most limit")).toEqual(["limits.page"]);
    expect(() => compileGrep("(")).toThrow(/--grep "\(" is not a regular expression/);
  });

  it("gives every check the run's marker, options and shared store, and counts its requests", async () => {
    const seen: string[] = [];
    let made = 0;
    const counter: SharedSlot<{ n: number }> = { name: "counter", make: () => ({ n: (made += 1) * 0 }) };
    const results = await run(
      [
        check("first", "MUST", async (ctx) => {
          ctx.shared.get(counter).n = 41;
          await ctx.http.send({ method: "GET", path: "/a" });
          await ctx.http.send({ method: "GET", path: "/b" });
        }),
        check("second", "SHOULD", async (ctx) => {
          seen.push(ctx.marker, String(ctx.shared.get(counter).n), String(ctx.options.seed));
          ctx.observe("note", "a note");
        }),
      ],
      { onResult: (r) => seen.push(r.id) },
    );
    expect(seen[0]).toBe("first");
    expect(seen[1]).toMatch(/^cfk-ya-[0-9a-z]{4}$/);
    expect(seen.slice(2)).toEqual(["41", "1234", "second"]);
    expect(results.map((r) => r.requests)).toEqual([2, 0]);
    expect(results[1]?.observations).toEqual([{ key: "note", text: "a note" }]);
    expect(made).toBe(1);
  });

  it("reports a PROBE that ends normally as observed, with what it saw", async () => {
    const [result] = await run([
      check("p", "PROBE", async (ctx) =>
        ctx.observe("unknown parameters ignored", "ignores unknown parameters"),
      ),
    ]);
    expect(result).toMatchObject({
      outcome: "observed",
      failsRun: false,
      observations: [{ key: "unknown parameters ignored", text: "ignores unknown parameters" }],
    });
  });
});

describe("selectChecks and makeMarker", () => {
  it("orders the selection like the run and leaves REFERENCE out of the spec profile", () => {
    const catalogue = [passing("z", "MUST", { phase: "final" }), passing("r", "REFERENCE"), passing("m")];
    expect(selectChecks(catalogue, { profile: "spec", readOnly: false }).map((s) => s.check.id)).toEqual([
      "m",
      "z",
    ]);
    expect(selectChecks(catalogue, { profile: "reference", readOnly: false }).map((s) => s.check.id)).toEqual(
      ["r", "m", "z"],
    );
  });

  it("builds the marker from the seed in base 36 and a suffix", () => {
    expect(makeMarker(1234, "abcd")).toBe("cfk-ya-abcd");
    expect(makeMarker(1234)).not.toBe(makeMarker(1234));
  });
});
