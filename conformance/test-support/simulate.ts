import { pathToFileURL } from "node:url";
import { ManualClock } from "../../src/model/clock.js";
import { createReference } from "../../src/entry/reference.js";
import { runConformance } from "../index.js";
import type { TokenManifest } from "../manifest-schema.js";
import { serve, virtualClock, VIRTUAL_START } from "./variants/harness.js";

/**
 * How long a default run takes against the reference at its real limit (100 a minute per token),
 * without waiting for it: the reference and the kit share a virtual clock, and the kit's waits are
 * added up instead of slept.
 *
 *   npx tsx conformance/test-support/simulate.ts [--full-tokens 1|3] [--seed N]
 */
export interface Simulation {
  virtualSeconds: number;
  requests: number;
  byToken: Record<string, number>;
  /** Virtual seconds waited, by the check that waited. */
  waitsByCheck: Record<string, number>;
  /** Requests by check, the costliest first. */
  requestsByCheck: Record<string, number>;
}

export async function simulate(fullTokens: number, seed: number): Promise<Simulation> {
  const clock = new ManualClock(VIRTUAL_START);
  const reference = await createReference({
    clock,
    rateLimit: { limit: 100, windowMs: 60_000 },
    log: () => {},
  });
  const manifest = keepFullTokens(reference.manifest, fullTokens);
  const target = await serve(reference.app, manifest, virtualClock(clock));
  const start = clock.now().getTime();
  let waited = 0;
  const waitsByCheck: Record<string, number> = {};
  const kitClock = {
    now: target.clock.now,
    sleep: (ms: number) => {
      waited += ms;
      return target.clock.sleep(ms);
    },
  };
  try {
    const report = await runConformance({
      baseUrl: target.baseUrl,
      manifest,
      seed,
      // As the CLI runs by default: the preflight's requests count in the tokens' budgets.
      preflight: true,
      clock: kitClock,
      onResult: (r) => {
        if (waited > 0) waitsByCheck[r.id] = waited / 1000;
        waited = 0;
      },
    });
    const failing = report.results.filter((r) => r.failsRun).map((r) => r.id);
    if (failing.length > 0) console.error(`failing: ${failing.join(", ")}`);
    return {
      virtualSeconds: (clock.now().getTime() - start) / 1000,
      requests: report.requests,
      byToken: report.pacing?.requestsByToken ?? {},
      waitsByCheck,
      requestsByCheck: Object.fromEntries(
        [...report.results].sort((a, b) => b.requests - a.requests).map((r) => [r.id, r.requests]),
      ),
    };
  } finally {
    await target.close();
  }
}

/** The manifest with at most `n` full-access tokens per organization (the others left out). */
function keepFullTokens<M extends TokenManifest>(manifest: M, n: number): M {
  const seen = new Map<string, number>();
  const tokens = manifest.tokens.filter((t) => {
    if (t.state !== "active" || t.scopes.length < 8) return true;
    const count = (seen.get(t.organization) ?? 0) + 1;
    seen.set(t.organization, count);
    return count <= n;
  });
  return { ...manifest, tokens };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const args = process.argv.slice(2);
  const value = (flag: string, fallback: number): number => {
    const at = args.indexOf(flag);
    return at === -1 ? fallback : Number(args[at + 1]);
  };
  const result = await simulate(value("--full-tokens", 3), value("--seed", 1));
  console.log(JSON.stringify(result, null, 2));
}
