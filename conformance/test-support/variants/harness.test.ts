import { setTimeout as delay } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { plain, runVariant, WINDOW_MS, type Variant } from "./harness.js";

/** A reference that takes real time to answer: what a busy 2-core machine looks like to the kit. */
const slowReference = (ms: number): Variant => ({
  id: "slow-reference",
  kind: "benign",
  area: "rate-limit",
  description: `the reference, answering every request ${ms} ms late`,
  build: (env) =>
    plain(env, {
      async request() {
        await delay(ms);
        return undefined;
      },
    }),
});

describe("the variant harness", () => {
  it("runs on virtual time: a burst that takes longer than the window in real time still meets its 429", async () => {
    const run = await runVariant(slowReference(120), { grep: "^ratelimit\\.burst$" });
    const burst = run.report.results.find((r) => r.id === "ratelimit.burst");
    // Batches of ten, 120 ms each: well past the one-second window on the machine's clock.
    // The burst, on the virtual clock, took no time at all.
    expect(run.seconds * 1000).toBeGreaterThan(WINDOW_MS);
    expect(burst?.outcome).toBe("pass");
    expect(burst?.observations.map((o) => o.text).join(" ")).toMatch(/ in 0 ms\./);
  });
});
