import { describe, expect, it } from "vitest";
import { failureKey, FOUNDATION_RULES, FOUNDATIONS, routeOf } from "./failures.js";
import { errorWithoutCode } from "./test-support/variants/errors.js";
import { runVariant, type Variant } from "./test-support/variants/harness.js";
import { contactEmailNotEchoed, unitPriceRounded } from "./test-support/variants/input.js";
import type { RunReport } from "./types.js";

describe("routeOf", () => {
  it("keeps the words of the spec's paths and writes every other segment as *", () => {
    expect(routeOf({ method: "get", path: "/api/v1/contacts" })).toBe("GET /api/v1/contacts");
    expect(routeOf({ method: "DELETE", path: "/api/v1/contacts/c_9f3a" })).toBe("DELETE /api/v1/contacts/*");
    expect(routeOf({ method: "GET", path: "/api/v1/cfk-1-abcd-nowhere" })).toBe("GET /api/v1/*");
    expect(routeOf({ method: "GET", path: "/api/v1/contacts/cfk-1-abcd/deeper" })).toBe(
      "GET /api/v1/contacts/*/*",
    );
  });

  it("keeps a path as sent when its words are the spec's, in another case or with a trailing slash", () => {
    expect(routeOf({ method: "GET", path: "/API/V1/contacts" })).toBe("GET /API/V1/contacts");
    expect(routeOf({ method: "GET", path: "/api/v1/contacts/" })).toBe("GET /api/v1/contacts/");
  });
});

describe("failureKey", () => {
  it("joins the parts in order and leaves the empty ones out", () => {
    expect(failureKey("status 200", "POST /api/v1/contacts")).toBe("status 200 | POST /api/v1/contacts");
    expect(failureKey(undefined, "more items than the limit", "")).toBe("more items than the limit");
  });
});

describe("foundation rules", () => {
  it("each cite clauses and say what every answer of their kind must keep", () => {
    for (const rule of FOUNDATION_RULES) {
      expect(FOUNDATIONS[rule].clause.length, rule).toBeGreaterThan(0);
      expect(FOUNDATIONS[rule].says, rule).toMatch(/\.$/);
    }
  });
});

/** Each failing check's key, by id. */
const keysOf = (report: RunReport): Record<string, string | undefined> =>
  Object.fromEntries(report.results.filter((r) => r.outcome === "fail").map((r) => [r.id, r.failure?.key]));

/** The variant run twice, at two seeds (the harness's own seed is fixed). */
const twoSeeds = (variant: Variant, grep: string) =>
  Promise.all([runVariant(variant, { seed: 1, grep }), runVariant(variant, { seed: 20261123, grep })]);

describe("failure keys", () => {
  it("are the same at another seed, for property checks whose counterexample is drawn at random", async () => {
    for (const [variant, grep] of [
      [unitPriceRounded, "^products\\.valid-bodies$"],
      [contactEmailNotEchoed, "^contacts\\.valid-bodies$"],
    ] as const) {
      const [a, b] = await twoSeeds(variant, grep);
      const keys = keysOf(a.report);
      expect(Object.keys(keys), variant.id).toHaveLength(1);
      expect(keysOf(b.report), variant.id).toEqual(keys);
      // The messages name the run's own records (marker, sku): the keys do not.
      expect(Object.values(keys).join(" ")).not.toMatch(/cfk-/i);
    }
  }, 90_000);

  it("name the foundation a check failed on, apart from the check's own rule", async () => {
    const [a, b] = await twoSeeds(errorWithoutCode, "^(auth\\.missing-token|run\\.error-envelope)$");
    const missing = a.report.results.find((r) => r.id === "auth.missing-token");
    expect(missing?.failure).toMatchObject({
      cause: "envelope.error-shape",
      key: "code not a string | GET /api/v1/contacts",
    });
    expect(FOUNDATIONS["envelope.error-shape"].checks).toContain("run.error-envelope");
    expect(a.report.results.find((r) => r.id === "run.error-envelope")?.failure?.cause).toBe("rule");
    expect(keysOf(b.report)).toEqual(keysOf(a.report));
  }, 90_000);
});
