import { afterEach, describe, expect, vi } from "vitest";
import { readmeExamples, runExample } from "../../test-support/readme.js";
import { CONTROL_KEY, controlledReference } from "../../test-support/control.js";
import { serverTest } from "../../test-support/serve.js";

// The README's examples of the reference in process, the control surface and sandboxes, run as
// written. The Playwright ones (playwright.config.ts, tests/contacts.spec.ts) are run by a real
// Playwright run in playwright.test.ts, the CI job (ci-job.sh) by src/entry/ci-job.readme.test.ts.

const it = serverTest;
afterEach(() => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
});

describe("the README's examples", () => {
  it("are all run by a test", () => {
    expect([...readmeExamples().keys()].sort()).toEqual([
      "ci-job.sh",
      "control-client",
      "in-process",
      "in-process-sandbox",
      "playwright.config.ts",
      "tests/contacts.spec.ts",
    ]);
  });

  it("in-process: builds a reference and resets it", async () => {
    await expect(runExample("in-process")).resolves.toBeUndefined();
  });

  it("control-client: resets, arms and clears a fault, and expires lumiere-expires-tomorrow", async ({
    serve,
  }) => {
    const ref = await controlledReference();
    vi.stubEnv("REFERENCE_URL", `http://127.0.0.1:${await serve(ref.app)}`);
    vi.stubEnv("REFERENCE_CONTROL_KEY", CONTROL_KEY);
    ref.control.setClock({ advance: "P9D" }); // what the reset puts back
    await runExample("control-client");
    expect(ref.control.clock().now).toBe("2026-11-22T12:00:00.000Z");
    const expiring = ref.tokens.get(ref.tokenId("lumiere-expires-tomorrow"));
    expect(expiring?.status).toBe("Expired");
    expect(ref.control.faults()).toEqual([]);
  });

  it("in-process-sandbox: a fault in a sandbox, which the default state never sees", async () => {
    const log = vi.spyOn(console, "log").mockImplementation(() => {});
    await runExample("in-process-sandbox");
    expect(log).toHaveBeenCalledWith(500, 0);
  });
});
