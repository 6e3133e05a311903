import { describe, expect, it } from "vitest";
import { limitConcurrency, runVariant, verdictProblem, type Variant } from "./variants/index.js";

/**
 * Each variant run is a server and a paced client in this one process: a few at a time use the time
 * the pacer leaves idle, and each rate-limit burst still outruns the limit (150 requests a second).
 */
export const slot = limitConcurrency(3);
export const TIMEOUT_MS = 90_000;

/**
 * One test per variant: a violation must fail the run naming one of its checks, a benign variant must
 * pass. A variant marked as a known kit gap is named so, and expects the kit's current wrong verdict
 * until the kit is fixed (verdictProblem then asks for the mark to go).
 */
export function describeVariants(title: string, variants: readonly Variant[], extra?: () => void): void {
  describe.concurrent(title, () => {
    it.each(
      variants.map(
        (v) => [v.knownGap === undefined ? v.description : `known kit gap: ${v.description}`, v] as const,
      ),
    )(
      "%s",
      async (_name, variant) => {
        const run = await slot(() => runVariant(variant));
        expect(verdictProblem(variant, run)).toBeUndefined();
      },
      TIMEOUT_MS,
    );
    extra?.();
  });
}
