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
    observations: ["type=CLIENT leaves out BOTH contacts."],
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
    observations: ["type=CLIENT includes BOTH contacts (3 of 9 items)."],
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

  it("does not call an open point different for what changes from run to run (marker, times, counters)", () => {
    const said = (text: string) =>
      report("http://x", [
        result({ id: "p.one", level: "PROBE", outcome: "observed", observations: [text] }),
      ]);
    const same = compareReports([
      {
        file: "a",
        report: said(
          "The sku CFK-1-I3WA-FULL is accepted; the 429 came at request 31, after 12 ms (r=0; t=60).",
        ),
      },
      {
        file: "b",
        report: said(
          "The sku CFK-5-ZZ09-FULL is accepted; the 429 came at request 97, after 40 ms (r=0; t=1).",
        ),
      },
    ]);
    expect(same.rows[0]?.differs).toBe(false);
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
