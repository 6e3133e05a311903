import type { Check } from "../types.js";
import { authChecks } from "./auth.js";
import { contactChecks } from "./contacts.js";
import { corsChecks } from "./cors.js";
import { coverageBodyChecks } from "./coverage-bodies.js";
import { coverageQueryChecks } from "./coverage.js";
import { envelopeChecks } from "./envelope.js";
import { errorChecks } from "./errors.js";
import { isolationChecks } from "./isolation.js";
import { listChecks } from "./lists.js";
import { productChecks } from "./products.js";
import { rateLimitChecks } from "./ratelimit.js";
import { resourceChecks } from "./resources.js";
import { runChecks } from "./run.js";
import { SECTION_ORDER } from "../spec/clauses.js";
import { versioningChecks } from "./versioning.js";

/** Every check but the final phase's; the catalogue sorts them in spec order. */
const main: readonly Check[] = [
  ...envelopeChecks,
  ...isolationChecks,
  ...resourceChecks,
  ...authChecks,
  ...listChecks,
  ...contactChecks,
  ...productChecks,
  ...corsChecks,
  ...errorChecks,
  ...versioningChecks,
];

/**
 * The coverage phase, first: every input's legal forms and illegal neighbours (checks/coverage.ts),
 * sent before the other checks add records, in the order of its inputs.
 */
const coveragePhase: readonly Check[] = [...coverageQueryChecks, ...coverageBodyChecks].map(
  (c): Check => ({ ...c, phase: "coverage" }),
);

/**
 * The final phase, in this order, after every other check: the rate-limit checks exhaust the limit
 * (the burst first: ratelimit.scope and ratelimit.headers read it), then the judges of the whole run
 * read every answer of it, the burst's included.
 */
const finalPhase: readonly Check[] = [...rateLimitChecks, ...runChecks].map(
  (c): Check => ({ ...c, phase: "final" }),
);

const rank = (c: Check): number => SECTION_ORDER.indexOf(c.section);

/**
 * The kit's checks: the coverage phase, then spec order (stable within a section, areas in the order
 * above), then the final phase.
 */
export const catalogue: readonly Check[] = [
  ...coveragePhase,
  ...main.toSorted((a, b) => rank(a) - rank(b)),
  ...finalPhase,
];
