import { describe, expect } from "vitest";
import { runConformance, TokenManifestSchema } from "../../../conformance/index.js";
import { virtualClock } from "../../../conformance/test-support/variants/harness.js";
import { ManualClock } from "../../model/clock.js";
import { controlledReference } from "../../test-support/control.js";
import { TEST_NOW } from "../../test-support/reference.js";
import { createSandbox, snapshotOf } from "../../test-support/sandboxes.js";
import { serverTest } from "../../test-support/serve.js";

// A sandbox's manifest is a token manifest the conformance kit reads (`--tokens`): the whole kit runs
// against the sandbox, and passes, while the default state and another sandbox keep everything they
// hold (the kit's requests without a known token are the default state's to refuse, as always).

const it = serverTest;

describe("the conformance kit against a sandbox", () => {
  it("passes every check, strict and with the reference's profile, touching nothing else", async ({
    serve,
  }) => {
    // The kit's own rate-limit window against the embedded reference: one second (DECISIONS.md). The
    // kit reads the reference's clock: on a clock of its own it would judge the rate limit, counted by
    // the reference on a clock that stands still, against real time.
    const clock = new ManualClock(TEST_NOW);
    const ref = await controlledReference({ clock, rateLimit: { limit: 100, windowMs: 1000 } });
    const baseUrl = `http://127.0.0.1:${await serve(ref.app)}`;
    const target = await createSandbox(ref);
    const bystander = await createSandbox(ref);
    const manifest = TokenManifestSchema.parse(target.state().manifest);
    const before = { main: snapshotOf(ref.state).records, bystander: snapshotOf(bystander.state()) };

    const report = await runConformance({
      baseUrl,
      manifest,
      rateWindowMs: 1000,
      profile: "reference",
      strict: true,
      numRuns: 10,
      seed: 20261120,
      clock: virtualClock(clock),
    });
    const failed = report.results.filter((r) => r.outcome === "fail").map((r) => r.id);
    expect(failed).toEqual([]);
    expect(report.results.filter((r) => r.outcome === "pass").length).toBeGreaterThan(50);
    expect(target.state().journal.size).toBeGreaterThan(100);
    expect(snapshotOf(ref.state).records).toBe(before.main);
    // The bystander's clock ran on with the shared one (the kit's waits), and was never moved.
    expect(snapshotOf(bystander.state())).toEqual({ ...before.bystander, clock: clock.now().toISOString() });
  });
});
