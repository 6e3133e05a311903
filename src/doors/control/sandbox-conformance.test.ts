import type { Server } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { runConformance, TokenManifestSchema } from "../../../conformance/index.js";
import { createServer } from "../../edge/server.js";
import { close, listen } from "../../test-support/raw-http.js";
import { controlledReference } from "../../test-support/control.js";
import { createSandbox, snapshotOf } from "../../test-support/sandboxes.js";

// A sandbox's manifest is a token manifest the conformance kit reads (`--tokens`): the whole kit runs
// against the sandbox, and passes, while the default state and another sandbox keep everything they
// hold (the kit's requests without a known token are the default state's to refuse, as always).

let server: Server | undefined;
afterEach(async () => {
  if (server !== undefined) await close(server);
  server = undefined;
});

describe("the conformance kit against a sandbox", () => {
  it("passes every check, strict and with the reference's profile, touching nothing else", async () => {
    // The kit's own rate-limit window against the embedded reference: one second (DECISIONS.md).
    const ref = await controlledReference({ rateLimit: { limit: 100, windowMs: 1000 } });
    server = createServer(ref.app);
    const baseUrl = `http://127.0.0.1:${await listen(server)}`;
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
