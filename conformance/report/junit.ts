import type { CheckResult, RunReport } from "../types.js";
import { causeText, clauseLines, groupBySection, replayCommand } from "./console.js";
import { exchangeText } from "./exchange.js";

/**
 * JUnit XML for CI dashboards: one testsuite per spec section, one testcase per check, every outcome
 * kept. Only results that fail the run are <failure>s, so the dashboard and the exit code agree; a
 * failure blocked by a foundation's own check says so first in its message, and every failure names
 * its cause. A known failure (in the baseline) is <skipped>, as test runners report an expected
 * failure; a SHOULD not met without --strict and a PROBE's observations go to <system-out>.
 */
export function renderJunitReport(report: RunReport): string {
  const { results } = report;
  const failures = results.filter((r) => r.failsRun).length;
  const skipped = results.filter((r) => r.outcome === "skip" || r.baseline === "known").length;
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="accounting API conformance" tests="${results.length}" failures="${failures}" errors="0" skipped="${skipped}" time="${seconds(report.durationMs)}" timestamp="${attr(report.startedAt)}">`,
  ];
  for (const [section, group] of groupBySection(results)) {
    const suiteFailures = group.filter((r) => r.failsRun).length;
    const suiteSkipped = group.filter((r) => r.outcome === "skip" || r.baseline === "known").length;
    const time = group.reduce((sum, r) => sum + r.durationMs, 0);
    lines.push(
      `  <testsuite name="${attr(section)}" tests="${group.length}" failures="${suiteFailures}" errors="0" skipped="${suiteSkipped}" time="${seconds(time)}" timestamp="${attr(report.startedAt)}">`,
      "    <properties>",
      ...Object.entries({
        target: report.target,
        embedded: String(report.embedded),
        profile: report.options.profile,
        strict: String(report.options.strict),
        seed: String(report.options.seed),
        started: report.startedAt,
        ...(report.kit === undefined
          ? {}
          : {
              kit: `${report.kit.name} ${report.kit.version}`,
              spec: `${report.kit.spec.file} sha256:${report.kit.spec.sha256}`,
            }),
        ...(report.baseline === undefined ? {} : { baseline: report.baseline.file }),
      }).map(([name, value]) => `      <property name="${name}" value="${attr(value)}"/>`),
      "    </properties>",
    );
    for (const r of group) lines.push(...testcase(report, r));
    lines.push("  </testsuite>");
  }
  lines.push("</testsuites>");
  return `${lines.join("\n")}\n`;
}

function testcase(report: RunReport, r: CheckResult): string[] {
  const open = `    <testcase name="${attr(`${r.id}: ${r.rule}`)}" classname="${attr(r.section)}" time="${seconds(r.durationMs)}"`;
  const body: string[] = [];
  if (r.outcome === "skip") {
    body.push(`      <skipped message="${attr(r.skipReason ?? "skipped")}"/>`);
  } else if (r.outcome === "fail") {
    const account = failureText(report, r);
    const blocked = r.failure?.blockedBy === undefined ? "" : `[blocked by ${r.failure.blockedBy}] `;
    if (r.baseline === "known") {
      body.push(
        `      <skipped message="${attr(`known failure, in the baseline: ${r.failure?.key ?? r.rule}`)}"/>`,
        `      <system-out>${text(`${r.level} not met, known from the baseline (does not fail the run)\n${account}`)}</system-out>`,
      );
    } else if (r.failsRun) {
      body.push(
        `      <failure message="${attr(`${blocked}${r.failure?.message ?? r.rule}`)}" type="${r.level}">${text(account)}</failure>`,
      );
    } else {
      body.push(
        `      <system-out>${text(`${r.level} not met (does not fail the run without --strict)\n${account}`)}</system-out>`,
      );
    }
  }
  const said = [
    ...(r.baseline === "fixed" ? ["fixed since the baseline"] : []),
    ...(r.outcome === "fail" ? [] : r.observations.map((o) => o.text)),
  ];
  if (said.length > 0) body.push(`      <system-out>${text(said.join("\n"))}</system-out>`);
  return body.length === 0 ? [`${open}/>`] : [`${open}>`, ...body, "    </testcase>"];
}

function failureText(report: RunReport, r: CheckResult): string {
  const f = r.failure;
  const lines = [...clauseLines(r.clauses).map((c) => `clause: ${c}`), `rule: ${r.rule}`];
  if (f !== undefined) {
    if (f.blockedBy !== undefined)
      lines.push(`blocked by: ${f.blockedBy} (this check failed only because of its defect)`);
    lines.push(`cause: ${causeText(f.cause)}`, `key: ${f.key}`);
    lines.push(`expected: ${f.expected}`, `actual: ${f.actual}`);
    if (f.status !== undefined) lines.push(`status: ${f.status}`);
    if (f.exchange !== undefined) lines.push(`exchange:\n${exchangeText(f.exchange)}`);
    if (f.curl !== undefined) lines.push(`curl: ${f.curl}`);
    if (f.replay !== undefined) lines.push(`counterexample: ${f.replay}`);
  }
  lines.push(`replay: ${replayCommand(report, r.id)}`);
  if (r.observations.length > 0) lines.push(...r.observations.map((o) => `note: ${o.text}`));
  return lines.join("\n");
}

function seconds(ms: number): string {
  return (ms / 1000).toFixed(3);
}

/**
 * Characters XML 1.0 cannot carry at all (most C0 controls, lone surrogates, U+FFFE/U+FFFF) become
 * U+FFFD: a target's answer is quoted in the report and must not make it unreadable.
 */
function clean(value: string): string {
  return value.replace(
    // Matching control characters is the point here.
    // eslint-disable-next-line no-control-regex
    /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g,
    "\uFFFD",
  );
}

export function text(value: string): string {
  return clean(value).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** Attribute values: quotes escaped, and line breaks kept as references (a parser would fold them). */
export function attr(value: string): string {
  return text(value)
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&apos;")
    .replace(/\n/g, "&#10;")
    .replace(/\r/g, "&#13;")
    .replace(/\t/g, "&#9;");
}
