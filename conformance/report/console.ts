import { singleQuote } from "../client.js";
import { clauseList, formatClauses, SECTIONS, sectionHasRules } from "../spec/clauses.js";
import { LEVELS, type Check, type CheckResult, type Level, type Outcome, type RunReport } from "../types.js";

/** "§4 Endpoints" → 4; undefined for a section that does not cite one. */
export function sectionNumber(section: string): number | undefined {
  const m = /^\s*§\s*(\d+)/.exec(section);
  return m?.[1] === undefined ? undefined : Number(m[1]);
}

/** Spec order (§1..§9), then sections that cite no number, alphabetically. */
export function compareSections(a: string, b: string): number {
  const na = sectionNumber(a) ?? Number.POSITIVE_INFINITY;
  const nb = sectionNumber(b) ?? Number.POSITIVE_INFINITY;
  if (na !== nb) return na < nb ? -1 : 1;
  return a.localeCompare(b);
}

/** Items grouped by their exact section, the groups in spec order, items in their given order. */
export function groupBySection<T extends { section: string }>(items: readonly T[]): Array<[string, T[]]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const group = groups.get(item.section);
    if (group === undefined) groups.set(item.section, [item]);
    else group.push(item);
  }
  return [...groups.entries()].sort(([a], [b]) => compareSections(a, b));
}

export interface CoverageRow {
  section: string;
  counts: Record<Level, number>;
  total: number;
  /** A section that states rules but has no check. */
  uncovered: boolean;
}

/** Checks of each level per spec section: every section that states rules must have some. */
export function coverage(catalogue: readonly Pick<Check, "section" | "level">[]): CoverageRow[] {
  const count = (checks: readonly Pick<Check, "level">[]): Record<Level, number> => {
    const counts: Record<Level, number> = { MUST: 0, SHOULD: 0, REFERENCE: 0, PROBE: 0 };
    for (const c of checks) counts[c.level] += 1;
    return counts;
  };
  const rows: CoverageRow[] = SECTIONS.map((s) => {
    const checks = catalogue.filter((c) => sectionNumber(c.section) === s.number);
    return {
      section: s.name,
      counts: count(checks),
      total: checks.length,
      uncovered: sectionHasRules(s.number) && checks.length === 0,
    };
  });
  const known = new Set(SECTIONS.map((s) => s.number));
  for (const [section, checks] of groupBySection(
    catalogue.filter((c) => !known.has(sectionNumber(c.section) ?? -1)),
  )) {
    rows.push({ section, counts: count(checks), total: checks.length, uncovered: false });
  }
  return rows;
}

export function renderCoverage(catalogue: readonly Pick<Check, "section" | "level">[]): string {
  const rows = coverage(catalogue);
  const width = Math.max(7, ...rows.map((r) => r.section.length));
  const head = `  ${"section".padEnd(width)}  ${LEVELS.map((l) => l.padStart(9)).join(" ")}  ${"total".padStart(5)}`;
  const lines = rows.map((r) => {
    const flag = r.uncovered ? "  <- states rules but has no check" : "";
    const cells = LEVELS.map((l) => String(r.counts[l]).padStart(9)).join(" ");
    return `  ${r.section.padEnd(width)}  ${cells}  ${String(r.total).padStart(5)}${flag}`;
  });
  const gaps = rows.filter((r) => r.uncovered).length;
  const verdict =
    gaps === 0
      ? "  Every section that states rules has checks."
      : `  ${gaps} section${gaps === 1 ? "" : "s"} with rules and no check.`;
  return ["Coverage of the spec (checks in the catalogue, by level)", head, ...lines, verdict].join("\n");
}

/** --list: every check, grouped by section. */
export function renderCatalogue(catalogue: readonly Check[]): string {
  const out: string[] = [];
  const idWidth = Math.min(48, Math.max(0, ...catalogue.map((c) => c.id.length)));
  for (const [section, checks] of groupBySection(catalogue)) {
    out.push(section);
    for (const c of checks) {
      const tags = [
        formatClauses(clauseList(c.clause)),
        c.gap === undefined ? "" : `gap #${c.gap}`,
        c.writes === true ? "writes" : c.writes === "if-needed" ? "writes if needed" : "",
        c.slow === true ? "slow" : "",
        c.phase === "final" ? "final" : "",
      ].filter((t) => t !== "");
      const suffix = tags.length === 0 ? "" : `  [${tags.join(", ")}]`;
      out.push(`  ${c.id.padEnd(idWidth)}  ${c.level.padEnd(9)}  ${c.rule}${suffix}`);
    }
    out.push("");
  }
  const byLevel = LEVELS.map((l) => `${catalogue.filter((c) => c.level === l).length} ${l}`).join(", ");
  out.push(`${catalogue.length} checks: ${byLevel}.`, "", renderCoverage(catalogue));
  return out.join("\n") + "\n";
}

const SOURCE = { option: "--rate-limit", manifest: "the manifest's rateLimit", default: "default" } as const;

const TAG: Record<Outcome, string> = { pass: "pass", fail: "FAIL", skip: "skip", observed: "obs " };

export interface ConsoleReportOptions {
  /** The catalogue the run drew from: for the coverage table and the spec-gaps row of each PROBE. */
  catalogue?: readonly Check[];
}

export function renderConsoleReport(report: RunReport, options: ConsoleReportOptions = {}): string {
  const out: string[] = [];
  const o = report.options;
  out.push(
    `Conformance of ${report.target}${report.embedded ? " (embedded reference)" : ""} to the accounting API spec`,
    `profile ${o.profile}, strict ${onOff(o.strict)}, read-only ${onOff(o.readOnly)}, seed ${o.seed}, ` +
      `${o.numRuns} runs per property, rate limit ${o.rateLimit} per ${formatWindow(o.rateWindowMs)} ` +
      `per ${o.rateLimitPer}${report.pacing === undefined ? "" : ` (${SOURCE[report.pacing.source]})`}`,
  );
  if (report.pacing?.fellBack !== undefined) out.push(`pacing: ${report.pacing.fellBack}`);
  out.push("");
  const idWidth = Math.min(48, Math.max(0, ...report.results.map((r) => r.id.length)));
  for (const [section, results] of groupBySection(report.results)) {
    out.push(`${section}  (${countsText(results)})`);
    for (const r of results) {
      const reason = r.outcome === "skip" && r.skipReason !== undefined ? ` (skipped: ${r.skipReason})` : "";
      const note = r.outcome === "fail" && !r.failsRun ? " (does not fail the run)" : "";
      out.push(
        `  ${TAG[r.outcome]}  ${r.id.padEnd(idWidth)}  ${r.level.padEnd(9)}  ${r.rule}${reason}${note}`,
      );
      if (r.level !== "PROBE")
        for (const obs of r.observations) out.push(`        note: ${oneLine(obs.text)}`);
    }
    out.push("");
  }
  const failing = report.results.filter((r) => r.outcome === "fail" && r.failsRun);
  const lenient = report.results.filter((r) => r.outcome === "fail" && !r.failsRun);
  if (failing.length > 0) {
    out.push(`Failures (${failing.length})`, "");
    for (const r of failing) out.push(...renderFailure(report, r), "");
  }
  if (lenient.length > 0) {
    out.push(`Not met, not failing the run (${lenient.length}; --strict makes SHOULD failures fail it)`, "");
    for (const r of lenient) out.push(...renderFailure(report, r), "");
  }
  const probes = report.results.filter((r) => r.level === "PROBE" && r.outcome === "observed");
  if (probes.length > 0) out.push(renderProbeTable(probes, options.catalogue), "");
  if (options.catalogue !== undefined) out.push(renderCoverage(options.catalogue), "");
  out.push(renderSummaryLine(report));
  return out.join("\n") + "\n";
}

function renderFailure(report: RunReport, r: CheckResult): string[] {
  const f = r.failure;
  const lines = [`FAIL ${r.id}  [${r.level}]  ${r.section}`, ...field("rule", r.rule)];
  if (f !== undefined) {
    lines.push(
      ...field("problem", f.message),
      ...field("expected", f.expected),
      ...field("actual", f.actual),
    );
    if (f.status !== undefined) lines.push(...field("status", String(f.status)));
    if (f.curl !== undefined) lines.push(...field("curl", f.curl));
    if (f.replay !== undefined) lines.push(...field("counterexample", f.replay));
  }
  lines.push(...field("replay", replayCommand(report, r.id)));
  return lines;
}

/** `label: value`, continuation lines indented under the value. */
function field(label: string, value: string): string[] {
  const pad = " ".repeat(Math.max(0, 10 - label.length));
  const [first = "", ...rest] = value.split(/\r?\n/);
  return [`  ${label}:${pad}${first}`, ...rest.map((l) => `  ${" ".repeat(11)}${l}`)];
}

/**
 * The command that reruns one check as the run ran it: every flag that shaped the run (target, token
 * manifest, rate limit, profile, strictness, seed, runs, read-only, slow), and a --grep naming the check.
 */
export function replayCommand(report: RunReport, id: string): string {
  const o = report.options;
  const args = ["npx", "conformance"];
  if (!report.embedded) args.push("--base-url", singleQuote(report.target));
  if (o.tokens !== undefined) args.push("--tokens", singleQuote(o.tokens));
  // The limit as the run had it, unless it came from the manifest named above (or is the default).
  const fromManifest = report.pacing?.source === "manifest" && o.tokens !== undefined;
  if (!fromManifest && o.rateLimit !== 100) args.push("--rate-limit", String(o.rateLimit));
  if (o.profile !== "spec") args.push("--profile", o.profile);
  if (o.strict) args.push("--strict");
  if (o.readOnly) args.push("--read-only");
  if (o.slow === true) args.push("--slow");
  if (o.numRuns !== 25) args.push("--num-runs", String(o.numRuns));
  args.push(
    "--seed",
    String(o.seed),
    "--grep",
    singleQuote(`^${id.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`),
  );
  return args.join(" ");
}

/** Markdown, so that a spec author can paste it where the open points are discussed. */
export function renderProbeTable(probes: readonly CheckResult[], catalogue?: readonly Check[]): string {
  const gaps = new Map((catalogue ?? []).map((c) => [c.id, c.gap]));
  const cell = (text: string): string => oneLine(text).replace(/\|/g, "\\|");
  const rows = probes.map((r) => {
    const gap = gaps.get(r.id);
    // Observations are usually sentences; those that are not get a separator.
    const did =
      r.observations.length === 0
        ? "(nothing recorded)"
        : r.observations
            .map(({ text }, i, all) => (i < all.length - 1 && !/[.!?]$/.test(text) ? `${text};` : text))
            .join(" ");
    return `| ${cell(r.id)} | ${gap === undefined ? "" : `#${gap}`} | ${cell(r.rule)} | ${cell(did)} |`;
  });
  return [
    "Open points: what this target does (PROBE, never failing)",
    "",
    "| check | spec-gaps | rule | what the target did |",
    "|---|---|---|---|",
    ...rows,
  ].join("\n");
}

export function renderSummaryLine(report: RunReport): string {
  const failing = report.results.filter((r) => r.failsRun).length;
  const verdict = failing > 0 ? "FAILED" : "PASSED";
  const failed = report.results.filter((r) => r.outcome === "fail").length;
  const failNote = failed > 0 ? ` (${failing} failing the run)` : "";
  const counts = `${countOf(report.results, "pass")} passed, ${failed} failed${failNote}, ${countOf(report.results, "skip")} skipped, ${countOf(report.results, "observed")} observed`;
  const seconds = (report.durationMs / 1000).toFixed(1);
  return `${verdict}: ${counts}; ${report.requests} requests in ${seconds} s; seed ${report.options.seed}`;
}

function countsText(results: readonly CheckResult[]): string {
  return `${countOf(results, "pass")} pass, ${countOf(results, "fail")} fail, ${countOf(results, "skip")} skip, ${countOf(results, "observed")} observed`;
}

function countOf(results: readonly CheckResult[], outcome: Outcome): number {
  return results.filter((r) => r.outcome === outcome).length;
}

function onOff(flag: boolean): string {
  return flag ? "on" : "off";
}

function formatWindow(ms: number): string {
  if (ms === 60_000) return "minute";
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

/** Line breaks folded into spaces: a table cell, an error said in one line. */
export function oneLine(text: string): string {
  return text.replace(/\s*[\r\n]+\s*/g, " ").trim();
}
