import { afterEach, describe, expect, it } from "vitest";
import { runConformance } from "../index.js";
import {
  NUM_RUNS,
  RATE_LIMIT,
  SEED,
  WINDOW_MS,
  startVariant,
  type StartedVariant,
  type Variant,
} from "../test-support/variants/harness.js";
import { REFERENCE_AS_IS } from "../test-support/variants/index.js";
import { noRateLimitHeaders } from "../test-support/variants/rate-limit.js";
import type { RunReport } from "../types.js";

/**
 * Runs started right after other runs against the same target (a re-run, a second CI job): the
 * earlier runs' requests are still in the target's window. The rate-limit checks run twice back to
 * back on one target and one virtual clock; neither run may fail (issue 29: the second failed
 * ratelimit.not-early, "a 429 came after 0 requests in its window").
 */

let target: StartedVariant | undefined;
afterEach(async () => {
  await target?.close();
  target = undefined;
});

const runOnce = (started: StartedVariant): Promise<RunReport> =>
  runConformance({
    baseUrl: started.baseUrl,
    manifest: started.manifest,
    rateLimit: RATE_LIMIT,
    rateWindowMs: WINDOW_MS,
    seed: SEED,
    numRuns: NUM_RUNS,
    clock: started.clock,
    grep: "^ratelimit\\.",
  });

const failing = (report: RunReport): string[] =>
  report.results.filter((r) => r.failsRun).map((r) => `${r.id}: ${r.failure?.message ?? ""}`);

const observed = (report: RunReport, id: string): string[] =>
  report.results.find((r) => r.id === id)?.observations.map((o) => o.key) ?? [];

async function backToBack(variant: Variant): Promise<[RunReport, RunReport]> {
  target = await startVariant(variant);
  const first = await runOnce(target);
  const second = await runOnce(target);
  return [first, second];
}

describe("rate-limit checks run right after another run", () => {
  it("pass the reference twice: its headers say what the first run left counted", async () => {
    const [first, second] = await backToBack(REFERENCE_AS_IS);
    expect(failing(first)).toEqual([]);
    expect(failing(second)).toEqual([]);
    // The second run met the first run's 429s and judged them by what the headers said.
    expect(second.results.find((r) => r.id === "ratelimit.not-early")?.outcome).toBe("pass");
  });

  it("pass a target without rate-limit headers twice: 429s of the run's first window are not judged", async () => {
    const [first, second] = await backToBack(noRateLimitHeaders);
    expect(failing(first)).toEqual([]);
    expect(failing(second)).toEqual([]);
    expect(observed(second, "ratelimit.not-early")).toContain("429s in the first window not judged");
  });
});
