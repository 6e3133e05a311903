import { kitSpec } from "../spec/kit-spec.js";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CheckFailure, sharedStore, systemKitClock, type CheckContext, type HttpExchange } from "../types.js";
import { checkProperty, writeRuns } from "./property.js";

/** A context with only what checkProperty reads: the options. */
function context(seed = 1234, numRuns = 25): CheckContext {
  return {
    spec: kitSpec(),
    options: {
      profile: "spec",
      strict: false,
      readOnly: false,
      seed,
      numRuns,
      rateLimit: 100,
      rateLimitPer: "token",
      rateWindowMs: 60_000,
    },
    http: {
      send: () => Promise.reject(new Error("no HTTP in this test")),
      sendUnpaced: () => Promise.reject(new Error("no HTTP in this test")),
      history: () => [],
    },
    tokens: {
      manifest: { version: 1, tokenPrefix: "t", organizations: [], tokens: [] },
      find: () => undefined,
      get: () => {
        throw new Error("no tokens in this test");
      },
    },
    marker: "cfk-test",
    skip: (reason) => {
      throw new Error(`skip: ${reason}`);
    },
    observe: () => undefined,
    shared: sharedStore(),
    clock: systemKitClock,
  };
}

const exchangeFor = (n: number): HttpExchange => ({
  request: { method: "GET", path: "/api/v1/contacts", query: { limit: String(n) } },
  status: 200,
  headers: {},
  text: "",
  json: undefined,
  curl: `curl 'http://x/api/v1/contacts?limit=${n}'`,
});

/** Fails for every n >= 10, with the exchange of that n. */
const failsFromTen = async (n: number): Promise<void> => {
  if (n >= 10) {
    throw new CheckFailure(`limit=${n} gave too much`, {
      key: "too many items | GET /api/v1/contacts",
      expected: "at most n items",
      actual: `${n + 1} items`,
      exchange: exchangeFor(n),
    });
  }
};

async function failureOf(run: Promise<void>): Promise<CheckFailure> {
  try {
    await run;
  } catch (error) {
    if (error instanceof CheckFailure) return error;
    throw error;
  }
  throw new Error("expected a CheckFailure");
}

describe("checkProperty", () => {
  it("passes when the predicate holds for every run, running numRuns times", async () => {
    let runs = 0;
    await checkProperty(context(1, 30), {
      rule: "always",
      arb: fc.nat(),
      predicate: async () => {
        runs += 1;
      },
    });
    expect(runs).toBe(30);
  });

  it("fails with the rule, the shrunk counterexample, expected/actual and the shrunk case's exchange", async () => {
    const f = await failureOf(
      checkProperty(context(), {
        rule: "a list never exceeds its limit",
        arb: fc.integer({ min: 0, max: 1000 }),
        predicate: failsFromTen,
      }),
    );
    expect(f.message).toContain("a list never exceeds its limit");
    expect(f.message).toContain("Broken by");
    expect(f.message).toContain(": 10.");
    expect(f.message).toContain("limit=10 gave too much");
    expect(f.expected).toBe("at most n items");
    expect(f.actual).toBe("11 items");
    expect(f.exchange?.request.query).toEqual({ limit: "10" });
    expect(f.replay).toMatch(/^--seed 1234 --num-runs 25 \(fast-check path [0-9:]+\)$/);
  });

  it("keys the failure by the counterexample's class and the rule it broke, the same at every seed", async () => {
    const spec = {
      rule: "r",
      arb: fc.integer({ min: 0, max: 1000 }),
      classOf: (n: number) => (n > 100 ? "large" : "small"),
      predicate: failsFromTen,
    };
    const keys = await Promise.all(
      [1, 2, 3].map(async (seed) => (await failureOf(checkProperty(context(seed), spec))).key),
    );
    expect(keys).toEqual([
      "small | too many items | GET /api/v1/contacts",
      "small | too many items | GET /api/v1/contacts",
      "small | too many items | GET /api/v1/contacts",
    ]);
  });

  it("replays: the same seed gives the same counterexample and path", async () => {
    const spec = { rule: "r", arb: fc.integer({ min: 0, max: 1000 }), predicate: failsFromTen };
    const a = await failureOf(checkProperty(context(99), spec));
    const b = await failureOf(checkProperty(context(99), spec));
    expect(a.replay).toBe(b.replay);
    expect(a.message).toBe(b.message);
  });

  it("runs examples first, and shows the counterexample as told", async () => {
    const f = await failureOf(
      checkProperty(context(), {
        rule: "r",
        arb: fc.constant(0),
        examples: [42],
        show: (n) => `limit=${n}`,
        predicate: failsFromTen,
      }),
    );
    expect(f.message).toContain("limit=");
  });

  it("runs every example, however many, and the generated cases on top", async () => {
    const seen: number[] = [];
    await checkProperty(context(1234, 3), {
      rule: "r",
      arb: fc.integer({ min: 100, max: 200 }),
      examples: [1, 2, 3, 4, 5, 6, 7],
      predicate: async (n) => void seen.push(n),
    });
    expect(seen.slice(0, 7)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(seen.slice(7)).toHaveLength(3);
  });

  it("gives the shrunk counterexample's own exchanges as the failure's evidence, all of them, in order", async () => {
    const history: HttpExchange[] = [];
    const ctx = { ...context(), http: { ...context().http, history: () => history } };
    const f = await failureOf(
      checkProperty(ctx, {
        rule: "r",
        arb: fc.integer({ min: 0, max: 1000 }),
        predicate: async (n) => {
          history.push(exchangeFor(n), exchangeFor(n + 1));
          await failsFromTen(n);
        },
      }),
    );
    const shrunk = Number(/Broken by \(after \d+ shrinks\): (\d+)/.exec(f.message)?.[1]);
    expect(f.evidence?.map((ex) => ex.request.query?.limit)).toEqual([String(shrunk), String(shrunk + 1)]);
  });

  it("stops spending requests on shrinking past its budget, reporting the last real failure", async () => {
    let calls = 0;
    let firstFailureAt = -1;
    const f = await failureOf(
      checkProperty(context(5, 100), {
        rule: "r",
        arb: fc.integer({ min: 0, max: 1_000_000 }),
        shrinkBudget: 3,
        predicate: async (n) => {
          calls += 1;
          if (n >= 10 && firstFailureAt === -1) firstFailureAt = calls;
          await failsFromTen(n);
        },
      }),
    );
    expect(calls - firstFailureAt).toBeLessThanOrEqual(3);
    expect(f.exchange).toBeDefined();
  });

  it("lets an error that is not a CheckFailure through as it is (a skip, a kit bug), unshrunk", async () => {
    const boom = new Error("kit bug");
    let calls = 0;
    await expect(
      checkProperty(context(), {
        rule: "r",
        arb: fc.nat(),
        predicate: () => {
          calls += 1;
          return Promise.reject(boom);
        },
      }),
    ).rejects.toBe(boom);
    expect(calls).toBe(1);
  });

  it("caps the runs of properties that write", () => {
    expect(writeRuns(context(1, 25))).toBe(10);
    expect(writeRuns(context(1, 4))).toBe(4);
  });
});
