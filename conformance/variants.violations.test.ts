import { describe, expect, it } from "vitest";
import {
  limitConcurrency,
  runVariant,
  verdictProblem,
  VIOLATIONS,
  type Area,
} from "./test-support/variants.js";

/**
 * The kit against deliberately broken references (spec profile; --strict only for the SHOULD rules):
 * each run must fail, naming one of the checks the variant breaks. This file holds the shapes of the
 * answers (envelopes, errors, formats, lists); variants.violations-access.test.ts the rest, so that a
 * machine with spare cores runs both at once (vitest keeps one core for itself: on 2 cores, one file).
 */

const AREAS: readonly Area[] = ["envelope", "errors", "formats", "lists"];
const cases = VIOLATIONS.filter((v) => AREAS.includes(v.area));
// Each run is a server and a paced client in this one process: a few at a time use the time the pacer
// leaves idle, and still let each rate-limit burst outrun the limit (more than 150 requests a second).
const slot = limitConcurrency(3);
const TIMEOUT_MS = 90_000;

describe.concurrent("the kit fails broken variants: envelopes, errors, formats, lists", () => {
  it.each(cases.filter((v) => v.knownGap === undefined).map((v) => [v.description, v] as const))(
    "%s",
    async (_description, variant) => {
      const run = await slot(() => runVariant(variant));
      expect(verdictProblem(variant, run)).toBeUndefined();
    },
    TIMEOUT_MS,
  );

  const gaps = cases.filter((v) => v.knownGap !== undefined);
  it.runIf(gaps.length > 0).each(gaps.map((v) => [v.description, v] as const))(
    "known kit gap, missed for now: %s",
    async (_description, variant) => {
      const run = await slot(() => runVariant(variant));
      expect(verdictProblem(variant, run)).toBeUndefined();
    },
    TIMEOUT_MS,
  );
});
