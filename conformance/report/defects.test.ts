import { describe, expect, it } from "vitest";
import type { Cause } from "../failures.js";
import { runVariant } from "../test-support/variants/harness.js";
import { detailsAsArray } from "../test-support/variants/errors.js";
import type { CheckResult, Level } from "../types.js";
import { renderConsoleReport, renderSummaryLine } from "./console.js";
import { attributeBlockers, blockerOf, defectsOf } from "./defects.js";
import { renderJsonReport } from "./json.js";
import { renderJunitReport } from "./junit.js";

const failed = (id: string, cause: Cause, level: Level = "MUST", key = `${id} broke`): CheckResult => ({
  id,
  section: "§7 Errors",
  clauses: [],
  level,
  rule: `rule of ${id}`,
  outcome: "fail",
  failsRun: level === "MUST",
  durationMs: 1,
  requests: 1,
  observations: [],
  failure: { key, cause, message: `${id} failed`, expected: "e", actual: "a" },
});

const passed = (id: string): CheckResult => ({ ...failed(id, "rule"), outcome: "pass", failsRun: false });

describe("one failure per defect", () => {
  it("lists a failure whose cause a failing foundation check judges under that check", () => {
    const results = [
      failed("contacts.invalid-bodies", "envelope.details-shape"),
      failed("products.unit-price-string", "envelope.details-shape", "SHOULD"),
      failed("contacts.order", "rule"),
      failed("run.error-envelope", "rule"),
    ];
    expect(blockerOf(results[0] as CheckResult, results)).toBe("run.error-envelope");
    expect(blockerOf(results[2] as CheckResult, results)).toBeUndefined();
    const defects = defectsOf(results);
    expect(defects.map((d) => [d.head.id, d.blocked.map((b) => b.id), d.failsRun, d.rule])).toEqual([
      [
        "run.error-envelope",
        ["contacts.invalid-bodies", "products.unit-price-string"],
        true,
        "envelope.details-shape",
      ],
      ["contacts.order", [], true, undefined],
    ]);
  });

  it("groups the failures of one foundation rule under the first of them when its own check did not fail", () => {
    const results = [
      failed("a.one", "cors.allow-origin"),
      failed("a.two", "cors.allow-origin"),
      passed("cors.success"),
      failed("b.other", "response.json"),
    ];
    expect(blockerOf(results[1] as CheckResult, results)).toBeUndefined();
    expect(defectsOf(results).map((d) => [d.head.id, d.blocked.map((b) => b.id)])).toEqual([
      ["a.one", ["a.two"]],
      ["b.other", []],
    ]);
  });

  it("takes a foundation's own check as the owner only when it failed by its own verdict", () => {
    // cors.success failed because its answer was no JSON: it did not judge CORS, so it blocks nothing.
    const results = [failed("a.one", "cors.allow-origin"), failed("cors.success", "response.json")];
    expect(blockerOf(results[0] as CheckResult, results)).toBeUndefined();
    // cors.errors failing on CORS itself is the owner, whether it ran first or last.
    const owned = [failed("cors.errors", "cors.allow-origin"), failed("a.one", "cors.allow-origin")];
    expect(blockerOf(owned[1] as CheckResult, owned)).toBe("cors.errors");
    expect(defectsOf(owned).map((d) => [d.head.id, d.blocked.map((b) => b.id)])).toEqual([
      ["cors.errors", ["a.one"]],
    ]);
  });

  it("sets blockedBy on the blocked failures only", () => {
    const results = attributeBlockers([
      failed("lists.limit-out-of-range", "envelope.error-code"),
      failed("run.error-envelope", "rule"),
      passed("lists.model"),
    ]);
    expect(results.map((r) => r.failure?.blockedBy)).toEqual(["run.error-envelope", undefined, undefined]);
  });
});

describe("a server with one envelope defect (error.details an array)", () => {
  it("headlines one failure, lists the other fifteen under it (the coverage phase's four among them), and keeps every outcome with its cause in JUnit and JSON", async () => {
    const run = await runVariant(detailsAsArray);
    const report = run.report;
    const fails = report.results.filter((r) => r.outcome === "fail");
    // Before grouping, each of these was a failure headlined by its own rule.
    expect(fails).toHaveLength(16);
    const blocked = fails.filter((r) => r.failure?.blockedBy === "run.error-envelope");
    expect(blocked).toHaveLength(15);
    expect(blocked.every((r) => r.failure?.cause === "envelope.details-shape")).toBe(true);

    const defects = defectsOf(report.results);
    expect(defects).toHaveLength(1);
    expect(defects[0]?.head.id).toBe("run.error-envelope");

    const console = renderConsoleReport(report);
    expect(console).toContain("Failures (1 distinct failure; 15 more checks failed only because of it)");
    expect(console.match(/^FAIL /gm)).toHaveLength(1);
    expect(console).toContain(
      "blocked:   15 more checks failed only because of envelope.details-shape (§7.3): An error's details, when present, is an object.",
    );
    expect(renderSummaryLine(report)).toMatch(
      /^FAILED: 1 distinct failure; 15 more checks failed only because of it; \d+ passed, 16 failed \(14 failing the run\)/,
    );

    const junit = renderJunitReport(report);
    expect(junit.match(/<failure /g)).toHaveLength(14);
    expect(junit.match(/<failure message="\[blocked by run\.error-envelope\] /g)).toHaveLength(13);
    expect(junit).toContain("cause: envelope.details-shape: An error's details");
    const json = JSON.parse(renderJsonReport(report)) as typeof report;
    expect(json.results.filter((r) => r.failure?.blockedBy === "run.error-envelope")).toHaveLength(15);
  });
});
