import { describe, expect, it } from "vitest";
import { nth } from "../test-support/local.js";
import type { Check, CheckResult, Level, RunReport } from "../types.js";
import { compareSections, coverage, renderCatalogue, renderConsoleReport, replayCommand } from "./console.js";
import { renderJsonReport } from "./json.js";
import { attr, renderJunitReport, text } from "./junit.js";

const result = (id: string, section: string, level: Level, over: Partial<CheckResult> = {}): CheckResult => ({
  id,
  section,
  clauses: [],
  level,
  rule: `rule of ${id}`,
  outcome: "pass",
  failsRun: false,
  durationMs: 12,
  requests: 1,
  observations: [],
  ...over,
});

const failure = {
  key: "more items than the limit",
  cause: "rule" as const,
  message: "limit ignored",
  expected: "at most 5 items",
  actual: "7 items",
  curl: `curl -sS -i 'http://t/api/v1/contacts?limit=5' -H "Authorization: Bearer \${TOKEN}"`,
  status: 200,
};

function sampleReport(): RunReport {
  return {
    target: "http://t:3000",
    embedded: false,
    options: {
      profile: "spec",
      strict: false,
      readOnly: false,
      seed: 987654,
      numRuns: 25,
      rateLimit: 100,
      rateLimitPer: "token",
      rateWindowMs: 60_000,
    },
    startedAt: "2025-01-01T00:00:00.000Z",
    durationMs: 4321,
    requests: 345,
    results: [
      result("limits.rate", "§8 Limits", "MUST"),
      result("contacts.limit", "§4 Endpoints", "MUST", { outcome: "fail", failsRun: true, failure }),
      result("auth.revoked", "§5 Authentication", "MUST", {
        outcome: "skip",
        skipReason: "no revoked token",
      }),
      result("contacts.order", "§4 Endpoints", "SHOULD", {
        outcome: "fail",
        failsRun: false,
        failure: { ...failure, message: "not newest first" },
      }),
      result("query.unknown", "§4 Endpoints", "PROBE", {
        outcome: "observed",
        observations: [{ key: "?foo=: 200", text: "ignored `foo=1` | 200" }],
      }),
      result("overview", "§1 What the service does", "MUST"),
    ],
  };
}

const catalogueOf = (entries: Array<[string, Level]>): Check[] =>
  entries.map(([section, level], i) => ({
    id: `c${i}`,
    section,
    clause: "§4.5",
    level,
    rule: "r",
    run: async () => {},
  }));

describe("console report", () => {
  const report = sampleReport();
  const out = renderConsoleReport(report, { catalogue: catalogueOf([["§4 Endpoints", "PROBE"]]) });

  it("groups results by section in spec order with counts per section", () => {
    const headers = out.split("\n").filter((l) => l.startsWith("§"));
    expect(headers).toEqual([
      "§1 What the service does  (1 pass, 0 fail, 0 skip, 0 observed)",
      "§4 Endpoints  (0 pass, 2 fail, 0 skip, 1 observed)",
      "§5 Authentication  (0 pass, 0 fail, 1 skip, 0 observed)",
      "§8 Limits  (1 pass, 0 fail, 0 skip, 0 observed)",
    ]);
    expect(out).toContain("(skipped: no revoked token)");
  });

  it("shows each failure with its rule, expected and actual answers, curl and replay command", () => {
    const block = out.slice(out.indexOf("Failures (1 distinct failure)"), out.indexOf("Not met"));
    expect(block).toContain("FAIL contacts.limit  [MUST]  §4 Endpoints");
    expect(block).toContain("rule:      rule of contacts.limit");
    expect(block).toContain("expected:  at most 5 items");
    expect(block).toContain("actual:    7 items");
    expect(block).toContain(`curl:      ${failure.curl}`);
    expect(block).toContain(
      "replay:    npx conformance --base-url http://t:3000 --seed 987654 --grep '^contacts\\.limit$'",
    );
    expect(out).toMatch(
      /Not met, not failing the run \(1 distinct failure;[^\n]*\n\nFAIL contacts\.order {2}\[SHOULD\]/,
    );
  });

  it("tabulates PROBE observations for a spec author", () => {
    expect(out).toContain("| check | spec-gaps | rule | what the target did |");
    expect(out).toContain("| query.unknown |  | rule of query.unknown | ignored `foo=1` \\| 200 |");
  });

  it("ends with totals, the request count, the duration and the seed", () => {
    expect(out.trimEnd().split("\n").at(-1)).toBe(
      "FAILED: 1 distinct failure; 2 passed, 2 failed (1 failing the run), 1 skipped, 1 observed; 345 requests in 4.3 s; seed 987654",
    );
  });

  it("flags every section that states rules but has no check, and never §6", () => {
    const rows = coverage(
      catalogueOf([
        ["§4 Endpoints", "MUST"],
        ["§4 Endpoints", "PROBE"],
        ["§7 Errors", "SHOULD"],
      ]),
    );
    expect(rows.filter((r) => r.uncovered).map((r) => r.section.split(" ")[0])).toEqual([
      "§1",
      "§2",
      "§3",
      "§5",
      "§8",
      "§9",
    ]);
    expect(rows.find((r) => r.section.startsWith("§4"))?.counts).toEqual({
      MUST: 1,
      SHOULD: 0,
      REFERENCE: 0,
      PROBE: 1,
    });
    expect(out).toMatch(/§2 Resources and their fields +0 +0 +0 +0 +0 {2}<- states rules but has no check/);
    expect(out).not.toMatch(/§6 Events.*<-/);
  });

  it("orders sections by their number, not as text", () => {
    expect(["§10 X", "§9 Versioning", "Other", "§1 A"].sort(compareSections)).toEqual([
      "§1 A",
      "§9 Versioning",
      "§10 X",
      "Other",
    ]);
  });

  it("replays an embedded run without a base URL, keeping the options that change the checks", () => {
    const embedded = { ...sampleReport(), embedded: true };
    embedded.options = { ...embedded.options, profile: "reference", numRuns: 100 };
    expect(replayCommand(embedded, "a.b")).toBe(
      "npx conformance --profile reference --num-runs 100 --seed 987654 --grep '^a\\.b$'",
    );
  });

  it("replays with every flag that shaped the run: the token manifest, the rate limit, --read-only, --slow", () => {
    const report = sampleReport();
    report.options = {
      ...report.options,
      tokens: "ci/my tokens.json",
      readOnly: true,
      slow: true,
      rateLimit: 60,
    };
    report.pacing = { source: "option", requestsByToken: {} };
    expect(replayCommand(report, "a.b")).toBe(
      "npx conformance --base-url http://t:3000 --tokens 'ci/my tokens.json' --rate-limit 60 --read-only --slow --seed 987654 --grep '^a\\.b$'",
    );
    // A limit read from the manifest comes back with it.
    report.pacing = { source: "manifest", requestsByToken: {} };
    expect(replayCommand(report, "a.b")).not.toContain("--rate-limit");
  });

  it("lists the catalogue grouped by section with id, level and rule", () => {
    const list = renderCatalogue([
      {
        id: "limits.burst",
        section: "§8 Limits",
        clause: ["§8.1", "§7.8"],
        level: "MUST",
        rule: "429 within 2N+1",
        phase: "final",
        gap: 21,
        run: async () => {},
      },
      {
        id: "auth.missing",
        section: "§5 Authentication",
        clause: ["§5.6", "§7.5"],
        level: "MUST",
        rule: "no token: 401",
        run: async () => {},
      },
    ]);
    expect(list).toMatch(
      /^§5 Authentication\n {2}auth\.missing +MUST +no token: 401 {2}\[§5\.6, §7\.5\]\n\n§8 Limits\n {2}limits\.burst +MUST +429 within 2N\+1 {2}\[§8\.1, §7\.8, gap #21, final\]/,
    );
    expect(list).toContain("2 checks: 2 MUST, 0 SHOULD, 0 REFERENCE, 0 PROBE.");
  });
});

describe("JUnit report", () => {
  it("escapes markup, quotes and characters XML cannot hold", () => {
    expect(text(`a<b>&"c"`)).toBe(`a&lt;b&gt;&amp;"c"`);
    expect(attr(`"x" 'y'\n<z>`)).toBe("&quot;x&quot; &apos;y&apos;&#10;&lt;z&gt;");
    expect(text("bell\u0007 nul\u0000 lone\uD800 pair😀")).toBe("bell\uFFFD nul\uFFFD lone\uFFFD pair😀");
  });

  it("writes one testsuite per section and one testcase per check; only run-failing results are failures", () => {
    const report = sampleReport();
    report.results[1] = { ...nth(report.results, 1), rule: `limit "<5>" & more` };
    const xml = renderJunitReport(report);
    expect(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n<testsuites')).toBe(true);
    expect(xml).toContain('tests="6" failures="1" errors="0" skipped="1"');
    expect(xml.match(/<testsuite /g)).toHaveLength(4);
    expect(xml.match(/<testcase /g)).toHaveLength(6);
    expect(xml).toContain(
      '<testcase name="contacts.limit: limit &quot;&lt;5&gt;&quot; &amp; more" classname="§4 Endpoints"',
    );
    expect(xml).toContain('<failure message="limit ignored" type="MUST">');
    expect(xml).toContain("curl: curl -sS -i 'http://t/api/v1/contacts?limit=5'");
    expect(xml).toContain('<skipped message="no revoked token"/>');
    expect(xml).toMatch(
      /<system-out>SHOULD not met \(does not fail the run without --strict\)\nrule: rule of contacts\.order/,
    );
    expect(xml).toContain("<system-out>ignored `foo=1` | 200</system-out>");
    expect(xml.match(/<failure /g)).toHaveLength(1);
    // Every element opened is closed: a cheap well-formedness check without an XML parser.
    for (const tag of ["testsuites", "testsuite", "testcase", "failure", "system-out", "properties"]) {
      const opened = (xml.match(new RegExp(`<${tag}[ >]`, "g")) ?? []).length;
      const selfClosed = (xml.match(new RegExp(`<${tag}[^>]*/>`, "g")) ?? []).length;
      const closed = (xml.match(new RegExp(`</${tag}>`, "g")) ?? []).length;
      expect(opened - selfClosed).toBe(closed);
    }
  });
});

describe("JSON report", () => {
  it("is the run report itself", () => {
    const report = sampleReport();
    expect(JSON.parse(renderJsonReport(report))).toEqual(report);
  });
});
