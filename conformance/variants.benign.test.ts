import { describe, expect, it } from "vitest";
import {
  BENIGN,
  REFERENCE_AS_IS,
  limitConcurrency,
  runVariant,
  verdictProblem,
} from "./test-support/variants.js";

/**
 * The kit must never fail a server for answering an open point another legal way: each benign variant
 * passes the whole catalogue in the spec profile. And the reference itself passes both profiles, strict.
 */

// As in the violation files: a few runs at a time, each burst still outrunning the limit.
const slot = limitConcurrency(3);
const TIMEOUT_MS = 90_000;

describe.concurrent("the kit passes legal variants", () => {
  it.each(BENIGN.filter((v) => v.knownGap === undefined).map((v) => [v.description, v] as const))(
    "%s",
    async (_description, variant) => {
      const run = await slot(() => runVariant(variant));
      expect(verdictProblem(variant, run)).toBeUndefined();
    },
    TIMEOUT_MS,
  );

  const gaps = BENIGN.filter((v) => v.knownGap !== undefined);
  it.runIf(gaps.length > 0).each(gaps.map((v) => [v.description, v] as const))(
    "known kit gap, failed for now: %s",
    async (_description, variant) => {
      const run = await slot(() => runVariant(variant));
      expect(verdictProblem(variant, run)).toBeUndefined();
    },
    TIMEOUT_MS,
  );

  it.each(["spec", "reference"] as const)(
    "the reference as it is passes the %s profile with --strict and --slow",
    async (profile) => {
      // --slow too: ratelimit.retry-after waits one window, a second here.
      const run = await slot(() => runVariant(REFERENCE_AS_IS, { profile, strict: true, slow: true }));
      expect(verdictProblem(REFERENCE_AS_IS, run)).toBeUndefined();
      expect(run.report.options).toMatchObject({ profile, strict: true });
      expect(run.report.results.find((r) => r.id === "ratelimit.retry-after")?.outcome).toBe("pass");
      // The REFERENCE checks ran (or not) as the profile says.
      expect(run.report.results.some((r) => r.level === "REFERENCE")).toBe(profile === "reference");
    },
    TIMEOUT_MS,
  );
});
