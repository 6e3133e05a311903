import { describe, expect, it } from "vitest";
import { runConformance, TokenManifestSchema } from "../../../conformance/index.js";
import { controlledReference } from "../../test-support/control.js";
import { createSandbox, snapshotOf } from "../../test-support/sandboxes.js";
import { servePerTest } from "../../test-support/serve.js";

// A sandbox's manifest is a token manifest the conformance kit reads (`--tokens`): the whole kit runs
// against the sandbox, and passes, while the default state and another sandbox keep everything they
// hold (the kit's requests without a known token are the default state's to refuse, as always).

const serve = servePerTest();

describe("the conformance kit against a sandbox", () => {
  it("passes every check, strict and with the reference's profile, touching nothing else", async () => {
    // The kit's own rate-limit window against the embedded reference: one second (DECISIONS.md).
    const ref = await controlledReference({ rateLimit: { limit: 100, windowMs: 1000 } });
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
    });
    const failed = report.results.filter((r) => r.outcome === "fail").map((r) => r.id);
    expect(failed).toEqual([]);
    expect(report.results.filter((r) => r.outcome === "pass").length).toBeGreaterThan(50);
    expect(target.state().journal.size).toBeGreaterThan(100);
    expect(snapshotOf(ref.state).records).toBe(before.main);
    expect(snapshotOf(bystander.state())).toEqual(before.bystander);
  });
});
