import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main, type CliIo } from "../cli.js";
import type { CheckResult, RunReport } from "../types.js";
import { compareReports, renderComparison } from "./compare.js";
import { escapeHtml, renderHtmlReport } from "./html.js";
import { renderJsonReport } from "./json.js";
import { parseReport, ReportFileError } from "./read.js";

const result = (over: Partial<CheckResult> & Pick<CheckResult, "id">): CheckResult => ({
  section: "§4 Endpoints",
  clauses: ["§4.5"],
  level: "MUST",
  rule: `rule of ${over.id}`,
  outcome: "pass",
  failsRun: false,
  durationMs: 1,
  requests: 1,
  observations: [],
  ...over,
});

function report(target: string, results: CheckResult[]): RunReport {
  return {
    target,
    embedded: false,
    options: {
      profile: "spec",
      strict: false,
      readOnly: false,
      seed: 7,
      numRuns: 25,
      rateLimit: 100,
      rateLimitPer: "token",
      rateWindowMs: 60_000,
      tokens: "ci/tokens.json",
    },
    startedAt: "2026-11-22T00:00:00.000Z",
    durationMs: 1000,
    requests: 10,
    results,
  };
}

const reference = report("http://ref", [
  result({ id: "auth.invalid-token", section: "§5 Authentication" }),
  result({
    id: "lists.type-filter-both",
    level: "PROBE",
    outcome: "observed",
    observations: [{ key: "type=CLIENT leaves out BOTH", text: "type=CLIENT leaves out BOTH contacts." }],
  }),
  result({ id: "isolation.lists", section: "§1 What the service does" }),
]);
const other = report("http://other", [
  result({
    id: "auth.invalid-token",
    section: "§5 Authentication",
    outcome: "fail",
    failsRun: true,
    failure: {
      key: "status 200 | GET /api/v1/contacts",
      cause: "rule",
      message: "Authorization with a valid token with its last character dropped must get 401 <§5.6>",
      expected: "status 401",
      actual: "200 {}",
      curl: 'curl -sS -i \'http://other/api/v1/contacts?limit=1\' -H "Authorization: Bearer ${TOKEN}x"\n# $TOKEN = manifest token "full"',
      status: 200,
    },
  }),
  result({
    id: "lists.type-filter-both",
    level: "PROBE",
    outcome: "observed",
    observations: [
      { key: "type=CLIENT includes BOTH", text: "type=CLIENT includes BOTH contacts (3 of 9 items)." },
    ],
  }),
]);

describe("compareReports", () => {
  const c = compareReports([
    { file: "ref.json", report: reference },
    { file: "other.json", report: other },
  ]);

  it("puts each check's outcome per target side by side, in spec order, and marks where they differ", () => {
    expect(c.targets.map((t) => t.label)).toEqual(["A", "B"]);
    expect(c.rows.map((r) => [r.id, r.outcomes, r.differs])).toEqual([
      ["isolation.lists", ["pass", undefined], true],
      ["lists.type-filter-both", ["observed", "observed"], true],
      ["auth.invalid-token", ["pass", "fail"], true],
    ]);
  });

  it("marks an open point as differing when the targets did different things, and not when they did the same", () => {
    const same = compareReports([
      { file: "a", report: reference },
      { file: "b", report: reference },
    ]);
    expect(same.rows.some((r) => r.differs)).toBe(false);
  });

  it("matches open points by their observations' keys, not their texts, which carry each run's values", () => {
    const said = (key: string, text: string) =>
      report("http://x", [
        result({ id: "p.one", level: "PROBE", outcome: "observed", observations: [{ key, text }] }),
      ]);
    const same = compareReports([
      { file: "a", report: said("429 met", "The burst met its first 429 at request 31, after 12 ms.") },
      { file: "b", report: said("429 met", "The burst met its first 429 at request 97, after 40 ms.") },
    ]);
    expect(same.rows[0]?.differs).toBe(false);
    const other = compareReports([
      { file: "a", report: said("429 met", "The burst met its first 429 at request 31, after 12 ms.") },
      { file: "b", report: said("no 429", "The burst met its first 429 at request 31, after 12 ms.") },
    ]);
    expect(other.rows[0]?.differs).toBe(true);
  });

  it("prints a legend, one line per check and each target's observation on each open point", () => {
    const text = renderComparison(c);
    expect(text).toContain("  A = ref.json: http://ref, profile spec, seed 7, PASSED");
    expect(text).toContain("  B = other.json: http://other, profile spec, seed 7, FAILED (1)");
    expect(text).toMatch(/auth\.invalid-token\s+MUST\s+pass\s+FAIL\s+<- differs/);
    expect(text).toMatch(/isolation\.lists\s+MUST\s+pass\s+-\s+<- differs/);
    expect(text).toContain("  A: type=CLIENT leaves out BOTH contacts.");
    expect(text).toContain("  B: type=CLIENT includes BOTH contacts (3 of 9 items).");
    expect(text).toContain("3 of 3 checks differ between the targets");
  });
});

describe("renderHtmlReport", () => {
  const html = renderHtmlReport([
    { file: "ref.json", report: reference },
    { file: "other.json", report: other },
  ]);

  it("is one self-contained page: no script, no stylesheet or image to fetch", () => {
    expect(html.startsWith("<!doctype html>")).toBe(true);
    expect(html).not.toMatch(/<script|<link|<img|src=|@import|url\(/i);
  });

  it("shows the outcomes side by side, the open points, and each failure with its curl and replay, escaped", () => {
    expect(html).toContain('<td class="fail">FAIL</td>');
    expect(html).toContain("type=CLIENT includes BOTH contacts (3 of 9 items).");
    expect(html).toContain(escapeHtml("must get 401 <§5.6>"));
    expect(html).not.toContain("must get 401 <§5.6>");
    expect(html).toContain(escapeHtml('-H "Authorization: Bearer ${TOKEN}x"'));
    expect(html).toContain(
      escapeHtml(
        "npx conformance --base-url http://other --tokens ci/tokens.json --seed 7 --grep '^auth\\.invalid-token$'",
      ),
    );
  });
});

describe("reading reports", () => {
  it("reads what --reporter json writes", () => {
    expect(parseReport(JSON.parse(renderJsonReport(other)), "other.json")).toEqual(other);
  });

  it("reads a report written before keys: an observation is its own key, a failure's message its key", () => {
    // The report as written before clauses, keys and causes.
    const old = {
      ...other,
      results: other.results.map(({ clauses: _clauses, observations, failure, ...r }) => {
        if (failure === undefined) return { ...r, observations: observations.map((o) => o.text) };
        const { key: _key, cause: _cause, ...rest } = failure;
        return { ...r, observations: observations.map((o) => o.text), failure: rest };
      }),
    };
    const read = parseReport(old, "old.json");
    expect(read.results[1]?.observations).toEqual([
      {
        key: "type=CLIENT includes BOTH contacts (3 of 9 items).",
        text: "type=CLIENT includes BOTH contacts (3 of 9 items).",
      },
    ]);
    expect(read.results[0]).toMatchObject({
      clauses: [],
      failure: { key: other.results[0]?.failure?.message, cause: "rule" },
    });
  });

  it("refuses a file that is no report, in one line", () => {
    expect(() => parseReport({ target: "x" }, "junk.json")).toThrow(ReportFileError);
    expect(() => parseReport({ target: "x" }, "junk.json")).toThrow(
      /^junk\.json is not a report written with --reporter json \(/,
    );
  });
});

describe("conformance compare", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "cfk-compare-"));
    await writeFile(join(dir, "ref.json"), renderJsonReport(reference));
    await writeFile(join(dir, "other.json"), renderJsonReport(other));
    await writeFile(join(dir, "junk.json"), "{}");
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function cli(...args: string[]) {
    let stdout = "";
    let stderr = "";
    const io: CliIo = {
      stdout: (t) => void (stdout += t),
      stderr: (t) => void (stderr += t),
      setExitCode: () => {},
    };
    const code = await main(["node", "conformance", "compare", ...args], io);
    return { code, stdout, stderr };
  }

  it("prints the comparison and exits 0, however much the reports differ", async () => {
    const run = await cli(join(dir, "ref.json"), join(dir, "other.json"));
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/auth\.invalid-token\s+MUST\s+pass\s+FAIL/);
  });

  it("writes the HTML page with --reporter html --output", async () => {
    const out = join(dir, "compare.html");
    const run = await cli(
      join(dir, "ref.json"),
      join(dir, "other.json"),
      "--reporter",
      "html",
      "--output",
      out,
    );
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(`3 checks differ; html comparison written to ${out}\n`);
  });

  it("exits 2 with one line for a file that is no report, or no file at all", async () => {
    const junk = await cli(join(dir, "ref.json"), join(dir, "junk.json"));
    expect(junk.code).toBe(2);
    expect(junk.stderr).toMatch(
      /^conformance compare: .*junk\.json is not a report written with --reporter json/,
    );
    const none = await cli();
    expect(none.code).toBe(2);
  });
});
