import { describeVariants } from "./test-support/describe-variants.js";
import { VIOLATIONS } from "./test-support/variants/index.js";

/**
 * The kit against deliberately broken references (spec profile; --strict only for the SHOULD rules):
 * each run must fail, naming one of the checks the variant breaks. This file holds the shapes of the
 * answers; variants.violations-access.test.ts holds access and input, so that a machine with spare
 * cores runs both at once.
 */
describeVariants(
  "the kit fails broken variants: envelopes, errors, formats, lists",
  VIOLATIONS.filter((v) => ["envelope", "errors", "formats", "lists"].includes(v.area)),
);
