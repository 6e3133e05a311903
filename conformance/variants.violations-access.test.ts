import { describeVariants } from "./test-support/describe-variants.js";
import { VIOLATIONS } from "./test-support/variants/index.js";

/** The kit against broken references: tokens, isolation, CORS, bodies, the rate limit (see variants.violations.test.ts). */
describeVariants(
  "the kit fails broken variants: tokens, isolation, CORS, input, rate limit",
  VIOLATIONS.filter((v) => ["auth", "isolation", "cors", "input", "rate-limit"].includes(v.area)),
);
