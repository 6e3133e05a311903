import { describe, expect, it } from "vitest";
import { ManualClock } from "../src/model/clock.js";
import { createReference } from "../src/entry/reference.js";
import { applyVariant, defaultSpec, type Spec } from "../spec/index.js";
import { catalogue } from "./checks/index.js";
import { runConformance } from "./index.js";
import { specDiff } from "./report/spec-diff.js";
import { serve, SEED, VIRTUAL_START, virtualClock } from "./test-support/variants/harness.js";

/**
 * Issue 26's proof: the kit under a spec variant passes the reference under the same variant, and each
 * fails the other on the clauses the variant changes. Both read the variant from the spec file alone: a
 * constant that shadowed the file would make one side hold the default and fail the same-spec run.
 * Time is virtual (the harness's clock): the 60-a-minute variant waits its windows without waiting.
 */

const defaults = defaultSpec();

interface MatrixRow {
  name: string;
  variant: Record<string, unknown>;
  /**
   * Whether the kit under the spec as written can see the variant in the reference under it: "passes"
   * where the variant only allows more than the spec as written in a way the kit never tries.
   */
  kitDefaultVsVariant: "fails" | "passes";
}

const MATRIX: readonly MatrixRow[] = [
  {
    name: "page max 500",
    variant: { limits: { page: { max: 500 } } },
    kitDefaultVsVariant: "fails",
  },
  {
    name: "60 requests a minute",
    variant: { limits: { rate: { requests: 60 } } },
    kitDefaultVsVariant: "fails",
  },
  {
    name: "contact name max 100",
    variant: { limits: { contact: { name: 100 } } },
    kitDefaultVsVariant: "fails",
  },
  {
    name: "duplicate sku 409 conflict",
    variant: { errors: { duplicateSku: { status: 409, code: "conflict" } } },
    kitDefaultVsVariant: "fails",
  },
  {
    name: "an added optional product field currency, string, max 3",
    variant: { fields: { product: { currency: { type: "string", required: false, maxLength: 3 } } } },
    // An added optional field the default kit never sends: served as null in a list, it breaks no
    // clause of the spec as written (spec-gaps #4: a record may carry more than §2 lists).
    kitDefaultVsVariant: "passes",
  },
  {
    name: "an added contact type",
    variant: { enums: { contactTypes: [...defaults.enums.contactTypes, "PARTNER"] } },
    // The default kit never sends PARTNER: a server that also takes it breaks nothing it can see.
    kitDefaultVsVariant: "passes",
  },
];

/** The kit under `kitSpec` against the reference under `referenceSpec`: the ids of the checks failing the run. */
async function failingChecks(kitSpec: Spec, referenceSpec: Spec): Promise<string[]> {
  const clock = new ManualClock(VIRTUAL_START);
  const reference = await createReference({ clock, spec: referenceSpec, log: () => {} });
  const target = await serve(reference.app, reference.manifest, virtualClock(clock));
  try {
    const report = await runConformance({
      baseUrl: target.baseUrl,
      // Without the target's own declaration of its limit: the kit holds it to its spec's §8.
      manifest: { ...target.manifest, rateLimit: undefined },
      spec: kitSpec,
      seed: SEED,
      numRuns: 8,
      clock: target.clock,
      preflight: false,
    });
    return report.results.filter((r) => r.failsRun).map((r) => r.id);
  } finally {
    await target.close();
  }
}

describe("spec variants: the kit and the reference read one file", () => {
  describe.each(MATRIX)("$name", ({ variant, kitDefaultVsVariant }) => {
    const spec = applyVariant(variant);
    // The checks `conformance spec-diff` lists for this variant: a cross run must fail one of them.
    const changed = new Set(specDiff(defaults, spec, catalogue).checks.map((c) => c.id));

    it("the kit under the variant passes the reference under the variant", async () => {
      expect(await failingChecks(spec, spec)).toEqual([]);
    });

    it("the kit under the variant fails the reference under the spec as written, on a check spec-diff lists", async () => {
      const failing = await failingChecks(spec, defaults);
      expect(
        failing.filter((id) => changed.has(id)),
        `failing: ${failing.join(", ")}`,
      ).not.toEqual([]);
    });

    it("the kit under the spec as written fails the reference under the variant where it can see it", async () => {
      const failing = await failingChecks(defaults, spec);
      if (kitDefaultVsVariant === "passes") expect(failing).toEqual([]);
      else
        expect(
          failing.filter((id) => changed.has(id)),
          `failing: ${failing.join(", ")}`,
        ).not.toEqual([]);
    });
  });

  it("a variant that changes every number at once: the kit under it passes the reference under it", async () => {
    const everyNumber = applyVariant({
      limits: {
        page: { default: 20, max: 120 },
        rate: { requests: 70, windowSeconds: 30 },
        contact: { name: 150, phone: 40, address: 300, taxNumberTPS: 30, taxNumberTVQ: 30 },
        product: { sku: 64, name: 120, description: 1000 },
      },
      errors: { duplicateSku: { status: 409, code: "conflict" } },
    });
    expect(await failingChecks(everyNumber, everyNumber)).toEqual([]);
  });
});
