import { describe, expect, it } from "vitest";
import { defectsOf } from "./report/defects.js";
import { runVariant } from "./test-support/variants/harness.js";
import { limit200Refused } from "./test-support/variants/lists.js";

/**
 * One defect reads as one, and every message says only what the kit saw (issue #29): a target that
 * refuses limit=200, the largest page, made 25 "distinct" failures of it, and said "no such item in
 * the whole list" and "the list holds 0" of lists it had never read.
 */

/** Phrases that claim a list was read, or held nothing, which the kit cannot have seen here. */
const UNTRUE = [/no such item in the whole list/, /the list holds 0\b/, /is not in the organization's list/];

describe("a target refusing limit=200", () => {
  it("fails with at most 3 distinct failures, every other one under them, every message true", async () => {
    const { report } = await runVariant(limit200Refused);
    const failures = report.results.filter((r) => r.outcome === "fail");
    expect(failures.length).toBeGreaterThan(3);
    const defects = defectsOf(report.results);
    expect(defects.length, defects.map((d) => d.head.id).join(", ")).toBeLessThanOrEqual(3);
    expect(defects.flatMap((d) => [d.head, ...d.blocked])).toHaveLength(failures.length);
    // The defect names the rule broken and the check that judges it on its own.
    expect(defects[0]?.rule).toBe("list.largest-page");
    expect(defects[0]?.head.id).toBe("lists.page-max");
    for (const r of failures) {
      const said = [r.failure?.message, r.failure?.expected, r.failure?.actual].join("\n");
      for (const phrase of UNTRUE) expect(said, r.id).not.toMatch(phrase);
    }
  }, 120_000);
});
