import { expect, it } from "vitest";
import { describeVariants, slot, TIMEOUT_MS } from "./test-support/describe-variants.js";
import { BENIGN, REFERENCE_AS_IS, runVariant, verdictProblem } from "./test-support/variants/index.js";

/**
 * The kit must never fail a server for answering an open point another legal way: each benign variant
 * passes the whole catalogue in the spec profile. And the reference itself passes both profiles, strict.
 */

describeVariants("the kit passes legal variants", BENIGN, () => {
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
