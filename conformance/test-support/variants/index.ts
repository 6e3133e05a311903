import * as auth from "./auth.js";
import * as cors from "./cors.js";
import * as envelope from "./envelope.js";
import * as errors from "./errors.js";
import * as formats from "./formats.js";
import * as input from "./input.js";
import * as isolation from "./isolation.js";
import * as lists from "./lists.js";
import * as rateLimit from "./rate-limit.js";
import type { Area, Variant } from "./harness.js";

export {
  limitConcurrency,
  runVariant,
  verdictOf,
  verdictProblem,
  type Variant,
  type Verdict,
} from "./harness.js";

/**
 * The catalogue of variants: the machinery is in harness.ts; each variant is declared in the file of
 * its area, and every variant an area file exports is in the catalogue.
 */
const AREA_FILES: Readonly<Record<Area, Readonly<Record<string, Variant>>>> = {
  envelope,
  errors,
  formats,
  lists,
  auth,
  isolation,
  cors,
  input,
  "rate-limit": rateLimit,
};

export const VARIANTS: readonly Variant[] = Object.entries(AREA_FILES).flatMap(([area, file]) =>
  Object.values(file).map((variant) => {
    if (variant.area !== area)
      throw new Error(`variants: ${variant.id} is declared in ${area}.ts but says ${variant.area}`);
    return variant;
  }),
);
/** The kit must fail each one in the spec profile, naming the right check. */
export const VIOLATIONS: readonly Variant[] = VARIANTS.filter((v) => v.kind === "violation");
/** The kit must pass each one: another legal answer to an open point. */
export const BENIGN: readonly Variant[] = VARIANTS.filter((v) => v.kind === "benign");

/** The reference as it is, through the same harness: the kit must pass it in both profiles. */
export const REFERENCE_AS_IS: Variant = {
  id: "reference",
  kind: "benign",
  area: "envelope",
  description: "the reference, unwrapped",
  build: async (env) => (await env.reference()).app,
};
