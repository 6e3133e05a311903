import fc from "fast-check";
import { CheckFailure, failureKey } from "../failures.js";
import type { CheckContext, HttpExchange } from "../types.js";
import { snippet } from "./assert.js";

/**
 * Runs a fast-check property inside a check: the seed and the number of runs come from the run's
 * options, so that `--seed` replays a failure; the failure states the rule broken, the shrunk
 * counterexample, the expected and actual answer, and the exchange of that shrunk case.
 */

export interface PropertySpec<T> {
  /** The rule, as a failure states it: "an invalid contact body is refused with 400 invalid_request". */
  rule: string;
  arb: fc.Arbitrary<T>;
  /** Throws a CheckFailure (through the assertion helpers) when the rule is broken for `value`. */
  predicate: (value: T) => Promise<void>;
  /** Generated cases; default `ctx.options.numRuns`. */
  numRuns?: number;
  /** Cases run before the generated ones, every time, all of them (the generated ones come on top). */
  examples?: readonly T[];
  /** Real requests shrinking may spend after the first failure (each step is an exchange); default 40. */
  shrinkBudget?: number;
  /** How the counterexample is shown; default fast-check's stringify, cut to a report line. */
  show?: (value: T) => string;
  /**
   * The counterexample's class, for the failure's key: what kind of input broke the rule ("name too
   * long"), never its values, which change with the seed. Default: the key says only how it broke.
   */
  classOf?: (value: T) => string;
  /**
   * The target keeps what every case did (records, caches): a case may fail because of an earlier
   * one, and a shrunk case alone would not show the failure again. No shrinking, then, and the
   * evidence is every request the property sent, from its first case to the failure, in order: the
   * sequence that shows it on a fresh target.
   */
  stateful?: boolean;
  /** The property started after these exchanges of the check (a stateful property's setup): evidence too. */
  since?: number;
}

/**
 * Properties that create records run fewer times than the others: each run is a record left on the
 * target, and the arbitraries' variety shows within a few.
 */
export const writeRuns = (ctx: CheckContext): number => Math.max(1, Math.min(ctx.options.numRuns, 10));

export async function checkProperty<T>(ctx: CheckContext, spec: PropertySpec<T>): Promise<void> {
  const budget = spec.shrinkBudget ?? 40;
  const start = spec.since ?? ctx.http.history().length;
  let failedOnce = false;
  let afterFailure = 0;
  /** The exchanges of the last failing case: the shrunk counterexample's, as sent. */
  let lastEvidence: readonly HttpExchange[] = [];
  // A skip or a kit bug is no counterexample: it ends the property at once, unshrunk.
  let aborted: { error: unknown } | undefined;
  const property = fc.asyncProperty(spec.arb, async (value) => {
    if (aborted !== undefined) return;
    if (failedOnce) {
      afterFailure += 1;
      // Out of budget: report the last real failure rather than keep sending requests to shrink it.
      if (afterFailure > budget) return;
    }
    const before = ctx.http.history().length;
    try {
      await spec.predicate(value);
    } catch (error) {
      if (!(error instanceof CheckFailure)) {
        aborted = { error };
        return;
      }
      failedOnce = true;
      lastEvidence =
        spec.stateful === true
          ? ctx.http.history().slice(start)
          : (error.evidence ?? ctx.http.history().slice(before));
      throw error;
    }
  });
  // fast-check counts the examples among numRuns (and drops those beyond it): random draws come on top.
  const numRuns = (spec.numRuns ?? ctx.options.numRuns) + (spec.examples?.length ?? 0);
  const details = await fc.check(property, {
    seed: ctx.options.seed,
    numRuns,
    ...(spec.stateful === true ? { endOnFailure: true } : {}),
    ...(spec.examples === undefined ? {} : { examples: spec.examples.map((e): [T] => [e]) }),
  });
  if (aborted !== undefined) throw aborted.error;
  if (!details.failed) return;
  const replay = `--seed ${details.seed} --num-runs ${ctx.options.numRuns} (fast-check path ${details.counterexamplePath ?? "none"})`;
  if (details.counterexample === null) {
    throw new CheckFailure(`${spec.rule}: the property could not run to its end`, {
      key: failureKey("property did not finish", details.interrupted ? "interrupted" : "runs skipped"),
      cause: "error",
      expected: `${numRuns} runs`,
      actual: details.interrupted ? "interrupted" : `${details.numSkips} skipped runs`,
      replay,
    });
  }
  const error = details.errorInstance;
  if (!(error instanceof CheckFailure)) throw error;
  const [value] = details.counterexample;
  const shown = spec.show?.(value) ?? snippet(fc.stringify(value), 600);
  throw new CheckFailure(
    `${spec.rule}. Broken by (after ${details.numShrinks} shrinks): ${shown}. ${error.message}`,
    {
      // The broken rule as the shrunk case broke it, with the class of that case.
      key: failureKey(spec.classOf?.(value), error.key),
      cause: error.cause,
      expected: error.expected,
      actual: error.actual,
      ...(error.exchange === undefined ? {} : { exchange: error.exchange }),
      ...(lastEvidence.length === 0 ? {} : { evidence: lastEvidence }),
      replay,
    },
  );
}
