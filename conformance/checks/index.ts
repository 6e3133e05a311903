import type { Check } from "../types.js";
import { authChecks } from "./auth.js";
import { contactChecks } from "./contacts.js";
import { corsChecks } from "./cors.js";
import { envelopeChecks } from "./envelope.js";
import { errorChecks } from "./errors.js";
import { isolationChecks } from "./isolation.js";
import { listChecks } from "./lists.js";
import { productChecks } from "./products.js";
import { rateLimitChecks } from "./ratelimit.js";
import { resourceChecks } from "./resources.js";
import { runChecks } from "./run.js";
import { SECTION_ORDER } from "../spec/constants.js";
import { versioningChecks } from "./versioning.js";

const all: readonly Check[] = [
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
  ...rateLimitChecks,
  ...runChecks,
];

const rank = (c: Check): number => SECTION_ORDER.indexOf(c.section);

/**
 * The kit's checks in spec order (stable within a section, areas in the order above); the final phase
 * last and in its own order: the rate-limit burst before the checks that judge the whole run.
 */
export const catalogue: readonly Check[] = [
  ...all.filter((c) => c.phase !== "final").sort((a, b) => rank(a) - rank(b)),
  ...all.filter((c) => c.phase === "final"),
];
