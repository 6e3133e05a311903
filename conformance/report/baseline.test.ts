import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runConformance } from "../index.js";
import { contactCreate200 } from "../test-support/variants/envelope.js";
import { detailsAsArray } from "../test-support/variants/errors.js";
import {
  NUM_RUNS,
  RATE_LIMIT,
  startVariant,
  WINDOW_MS,
  type Variant,
} from "../test-support/variants/harness.js";
import type { CheckResult, RunReport } from "../types.js";
import { applyBaseline, BaselineError, checkBaseline, readBaseline, type Baseline } from "./baseline.js";
import { renderConsoleReport } from "./console.js";
import { renderJsonReport } from "./json.js";
import { renderJunitReport } from "./junit.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "cfk-baseline-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const result = (
  id: string,
  outcome: CheckResult["outcome"],
  key?: string,
  blockedBy?: string,
): CheckResult => ({
  id,
  section: "§4 Endpoints",
  clauses: [],
  level: "MUST",
  rule: `rule of ${id}`,
  outcome,
  failsRun: outcome === "fail",
  durationMs: 1,
  requests: 1,
  observations: [],
  ...(key === undefined
    ? {}
    : {
        failure: {
          key,
          cause: "rule" as const,
          blockedBy,
          message: `${id}: ${key}`,
          expected: "e",
          actual: "a",
        },
      }),
});

const baselineOf = (failures: Record<string, string[]>, ids: string[] = Object.keys(failures)): Baseline => ({
  file: "baseline.json",
  kitVersion: "0.1.0",
  ids: new Set(ids),
  failures: new Map(Object.entries(failures).map(([id, keys]) => [id, new Set(keys)])),
});

describe("applyBaseline", () => {
  it("matches failures by check id and key: known ones do not fail the run, others are new, passing ones fixed", () => {
    const baseline = baselineOf({
      "a.same": ["status 200 | POST /api/v1/contacts"],
      "b.other": ["k1"],
      "c.fixed": ["k"],
    });
    const { results, summary } = applyBaseline(
      [
        result("a.same", "fail", "status 200 | POST /api/v1/contacts"),
        result("b.other", "fail", "k2"),
        result("c.fixed", "pass"),
        result("d.new", "fail", "k"),
        result("e.blocked", "fail", "details not an object", "a.same"),
        result("f.pass", "pass"),
      ],
      baseline,
    );
    expect(results.map((r) => [r.id, r.baseline, r.failsRun])).toEqual([
      ["a.same", "known", false],
      ["b.other", "new", true],
      ["c.fixed", "fixed", false],
      ["d.new", "new", true],
      // A new check failing only because of a known defect is known too.
      ["e.blocked", "known", false],
      ["f.pass", undefined, false],
    ]);
    expect(summary).toEqual({
      file: "baseline.json",
      kitVersion: "0.1.0",
      known: 2,
      new: 2,
      fixed: ["c.fixed"],
    });
  });

  it("refuses a baseline naming checks this kit does not have, in one line naming its kit version", () => {
    const old = {
      ...baselineOf({ "contacts.create": ["k"] }, ["contacts.create", "auth.old-name"]),
      kitVersion: "0.0.9",
    };
    expect(() => checkBaseline(old, ["contacts.create"], "0.1.0")).toThrow(
      /^baseline baseline\.json was written by kit 0\.0\.9 and names 1 check this kit \(0\.1\.0\) does not have \(auth\.old-name\): write a new one with --reporter json:baseline\.json$/,
    );
    expect(() => checkBaseline(old, ["contacts.create", "auth.old-name"], "0.1.0")).not.toThrow();
  });

  it("refuses a file that cannot be read or is no report, in one line", async () => {
    await expect(readBaseline(join(dir, "missing.json"))).rejects.toThrow(
      new BaselineError(`baseline: cannot read ${join(dir, "missing.json")}: no such file`),
    );
    const junk = join(dir, "junk.json");
    await writeFile(junk, JSON.stringify({ results: "none" }));
    await expect(readBaseline(junk)).rejects.toThrow(
      /^baseline: .*junk\.json is not a report written with --reporter json/,
    );
  });
});

/** A run of the whole kit against a variant, as the harness runs it, with a seed and a baseline of our choice. */
async function runAgainst(variant: Variant, seed: number, baseline?: Baseline): Promise<RunReport> {
  const target = await startVariant(variant);
  try {
    return await runConformance({
      baseUrl: target.baseUrl,
      manifest: target.manifest,
      rateLimit: RATE_LIMIT,
      rateWindowMs: WINDOW_MS,
      numRuns: NUM_RUNS,
      seed,
      clock: target.clock,
      ...(baseline === undefined ? {} : { baseline }),
    });
  } finally {
    await target.close();
  }
}

describe("a baseline run", () => {
  it("adopts the kit on a failing server: the same defects at another seed are known, a new one fails, a repaired one is fixed", async () => {
    const first = await runAgainst(detailsAsArray, 1);
    expect(first.results.filter((r) => r.failsRun).length).toBeGreaterThan(0);
    const file = join(dir, "baseline.json");
    await writeFile(file, renderJsonReport(first));
    const baseline = await readBaseline(file);
    expect(baseline.kitVersion).toBe(first.kit?.version);

    // Another seed, another marker, the same defect: every failure is known, the run passes.
    const again = await runAgainst(detailsAsArray, 2, baseline);
    expect(again.results.filter((r) => r.outcome === "fail").every((r) => r.baseline === "known")).toBe(true);
    expect(again.results.filter((r) => r.failsRun)).toEqual([]);
    expect(again.baseline).toMatchObject({ file, new: 0, fixed: [] });
    expect(again.baseline?.known).toBe(first.results.filter((r) => r.outcome === "fail").length);
    expect(renderConsoleReport(again)).toMatch(/^PASSED: .*; baseline: \d+ known, 0 new, 0 fixed;/m);
    expect(renderJunitReport(again)).toContain(
      '<skipped message="known failure, in the baseline: details not an object"/>',
    );

    // The envelope repaired, creation answering 200 instead: the new defect fails the run, the old ones are fixed.
    const other = await runAgainst(contactCreate200, 3, baseline);
    const fresh = other.results.filter((r) => r.failsRun);
    expect(fresh.map((r) => r.id)).toContain("contacts.create-response");
    expect(fresh.every((r) => r.baseline === "new")).toBe(true);
    expect(other.baseline?.fixed).toContain("run.error-envelope");
    expect(other.results.find((r) => r.id === "run.error-envelope")?.baseline).toBe("fixed");
  });
});
