import { describe, expect, it } from "vitest";
import {
  archiveContacts,
  earlyRefusal,
  mapResources,
  plain,
  runVariant,
  type Variant,
  type VariantRun,
} from "./test-support/variants/harness.js";
import {
  addressStored255,
  descriptionStored255,
  taxableStringAccepted,
  unitPriceRounded,
} from "./test-support/variants/input.js";
import {
  expensesOfEveryOrganization,
  filteredListsForgetOrganization,
  invoicesOfEveryOrganization,
} from "./test-support/variants/isolation.js";
import { defaultLimit100, limitNonDecimalAsAbsent, pageCap250 } from "./test-support/variants/lists.js";
import { REFERENCE_AS_IS } from "./test-support/variants/index.js";

/**
 * One check at a time against the variant that shows its point (issue 10's classes), with --grep so
 * that each run stays small: what the kit must catch, and what it must never fail.
 */

const outcomeOf = (run: VariantRun, id: string): string | undefined =>
  run.report.results.find((r) => r.id === id)?.outcome;

const only = (id: string): string => `^${id.replace(/\./g, "\\.")}$`;

/** The variant with `count` old contacts added to org_lumiere: a list longer than the default page. */
const withArchive = (variant: Variant, count: number): Variant => ({
  ...variant,
  id: `${variant.id}-with-archive`,
  build: async (env) => {
    const inner = await variant.build({
      ...env,
      reference: async (settings) => {
        const reference = await env.reference(settings);
        archiveContacts(reference, "org_lumiere", count);
        return reference;
      },
    });
    return inner;
  },
});

const referenceAsIs = REFERENCE_AS_IS;

describe("limit in a notation other than decimal (class 6)", () => {
  it("passes a target that reads a non-decimal limit (0x10, 1e2, +5) as no limit and serves its default", async () => {
    const run = await runVariant(limitNonDecimalAsAbsent, { grep: only("lists.limit-out-of-range") });
    expect(outcomeOf(run, "lists.limit-out-of-range")).toBe("pass");
  });
});

describe("lists.default-limit under --read-only (class 7)", () => {
  it("runs without writing when a list already holds more than 50 items, and passes the reference", async () => {
    const run = await runVariant(withArchive(referenceAsIs, 60), {
      readOnly: true,
      grep: only("lists.default-limit"),
    });
    expect(outcomeOf(run, "lists.default-limit")).toBe("pass");
    expect(run.report.results.find((r) => r.id === "lists.default-limit")?.requests).toBe(8);
  });

  it("fails a default of 100 under --read-only when a list holds more than 50 items", async () => {
    const run = await runVariant(withArchive(defaultLimit100, 60), {
      readOnly: true,
      grep: only("lists.default-limit"),
    });
    expect(outcomeOf(run, "lists.default-limit")).toBe("fail");
  });

  it("says why it is skipped under --read-only when no list is long enough", async () => {
    const run = await runVariant(referenceAsIs, { readOnly: true, grep: only("lists.default-limit") });
    const result = run.report.results.find((r) => r.id === "lists.default-limit");
    expect(result?.outcome).toBe("skip");
    expect(result?.skipReason).toMatch(/no list of organization 0 holds more than 50 items .*--read-only/);
  });
});

describe("every single-rule break of §4's body tables, in every run (class 5)", () => {
  it.each([1, 2, 3, 20261122])("fails a server that takes a taxable string, at seed %i", async (seed) => {
    const run = await runVariant(taxableStringAccepted, { seed, grep: only("products.invalid-bodies") });
    expect(outcomeOf(run, "products.invalid-bodies")).toBe("fail");
  });
});

describe("isolation on every list, filtered or not, read-only collections too (class 2)", () => {
  it.each([filteredListsForgetOrganization, invoicesOfEveryOrganization, expensesOfEveryOrganization])(
    "fails $id",
    async (variant) => {
      const run = await runVariant(variant, { grep: only("isolation.lists") });
      expect(outcomeOf(run, "isolation.lists")).toBe("fail");
    },
  );

  it("fails an invoices list serving every organization's records by their contacts, without a second organization's token", async () => {
    const run = await runVariant(invoicesOfEveryOrganization, {
      grep: only("isolation.lists"),
      manifest: (m) => ({ ...m, tokens: m.tokens.filter((t) => t.organization !== "org_boreal") }),
    });
    const result = run.report.results.find((r) => r.id === "isolation.lists");
    expect(result?.outcome).toBe("fail");
    expect(result?.failure?.message).toMatch(/name contacts that are not among its own/);
  });

  it("passes the reference", async () => {
    const run = await runVariant(referenceAsIs, { grep: only("isolation.lists") });
    expect(outcomeOf(run, "isolation.lists")).toBe("pass");
  });
});

describe("values accepted at a boundary are read back intact (class 3)", () => {
  it.each([
    [descriptionStored255, "products.length-boundaries"],
    [addressStored255, "contacts.length-boundaries"],
  ] as const)("fails $id", async (variant, id) => {
    const run = await runVariant(variant, { grep: only(id) });
    const result = run.report.results.find((r) => r.id === id);
    expect(result?.outcome).toBe("fail");
    expect(result?.failure?.message).toMatch(/accepted, but not kept intact/);
    // The report replays the creation, then the read that shows the loss (class 8).
    const lines = result?.failure?.curl?.split("\n") ?? [];
    expect(lines[0]).toMatch(/-X POST .*\/api\/v1\/(products|contacts)/);
    expect(lines[1]).toMatch(/^curl .*\/api\/v1\/(products|contacts)\?limit=200/);
  });

  it("passes the reference", async () => {
    const run = await runVariant(referenceAsIs, { grep: "^(contacts|products)\\.length-boundaries$" });
    expect(run.report.results.map((r) => r.outcome)).toEqual(["pass", "pass"]);
  });
});

describe("reports that reproduce what was sent (class 8)", () => {
  /** Every product reads back one unit dearer: every case fails, whatever its price. */
  const dearer: Variant = {
    ...unitPriceRounded,
    id: "unit-price-plus-one",
    build: (env) =>
      plain(
        env,
        mapResources((item) =>
          typeof item.unitPrice === "string"
            ? { ...item, unitPrice: (Number(item.unitPrice) + 1).toFixed(4) }
            : item,
        ),
      ),
  };

  it("shows a product counterexample as the JSON sent (unitPrice a number) and replays its POST then its read", async () => {
    const run = await runVariant(dearer, { grep: only("products.valid-bodies") });
    const failure = run.report.results.find((r) => r.id === "products.valid-bodies")?.failure;
    expect(failure?.message).toMatch(/Broken by .*"unitPrice":\d/);
    expect(failure?.message).not.toMatch(/"unitPrice":"/);
    const lines = failure?.curl?.split("\n") ?? [];
    expect(lines[0]).toMatch(/-X POST .*\/api\/v1\/products .*--data-binary '.*"unitPrice":\d/);
    expect(lines[1]).toMatch(/\/api\/v1\/products\?limit=200/);
    expect(lines[2]).toMatch(/^# \$TOKEN = manifest token "lumiere-full/);
  });
});

describe("the page maximum of 200 (class 4)", () => {
  it("fails a page capped at 250 when a list holds more than 200 items", async () => {
    const run = await runVariant(pageCap250, { grep: only("lists.page-max") });
    expect(outcomeOf(run, "lists.page-max")).toBe("fail");
  });

  it("passes the reference when a list holds more than 200 items", async () => {
    const run = await runVariant(withArchive(referenceAsIs, 250), { grep: only("lists.page-max") });
    expect(outcomeOf(run, "lists.page-max")).toBe("pass");
  });

  it("says why it is skipped under --read-only when no list holds more than 200 items", async () => {
    const run = await runVariant(referenceAsIs, { readOnly: true, grep: only("lists.page-max") });
    const result = run.report.results.find((r) => r.id === "lists.page-max");
    expect(result?.outcome).toBe("skip");
    expect(result?.skipReason).toMatch(/^MUST not verified: no list holds more than 200 items .*--read-only/);
  });
});

describe("the model-based check: random sequences of creations and reads across two organizations (classes 2 to 4)", () => {
  it.each([filteredListsForgetOrganization, invoicesOfEveryOrganization, descriptionStored255])(
    "fails $id (seed 2)",
    async (variant) => {
      const run = await runVariant(variant, { seed: 2, grep: only("lists.model") });
      expect(outcomeOf(run, "lists.model")).toBe("fail");
    },
  );

  it.each([1, 2, 3])("passes the reference at seed %i", async (seed) => {
    const run = await runVariant(referenceAsIs, { seed, grep: only("lists.model") });
    expect(outcomeOf(run, "lists.model")).toBe("pass");
  });
});

describe("a body too large, refused before it is read whole (issue 29)", () => {
  it("passes a target that closes the connection during the body before the kit could read its answer, and says so", async () => {
    const silent: Variant = {
      id: "body-size-silent-close",
      kind: "benign",
      area: "errors",
      description: "a body over 1 MB: the connection is closed once 1 MB is read, the answer lost on the way",
      build: earlyRefusal("silent"),
    };
    const run = await runVariant(silent, { grep: only("errors.body-size") });
    const result = run.report.results.find((r) => r.id === "errors.body-size");
    expect(result?.outcome).toBe("pass");
    expect(result?.observations.map((o) => o.key)).toEqual(["connection closed during the body"]);
  });
});
