import { singleQuote } from "./curl.js";
import { FOUNDATIONS, type Cause } from "../failures.js";
import {
  clauseById,
  clauseList,
  formatClauses,
  quoteText,
  SECTIONS,
  sectionHasRules,
} from "../spec/clauses.js";
import { LEVELS, type Check, type CheckResult, type Level, type Outcome, type RunReport } from "../types.js";
import { defectsOf, type Defect } from "./defects.js";

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

/** `kit accounting-api-reference 0.1.0, spec accounting-api.md sha256 c712cf8fc0cf…, started …`. */
export function provenance(report: RunReport): string {
  const kit = report.kit;
  const spec = kit === undefined ? "" : `, spec ${kit.spec.file} sha256 ${kit.spec.sha256.slice(0, 12)}…`;
  return `${kit === undefined ? "kit (unknown version)" : `kit ${kit.name} ${kit.version}`}${spec}, started ${report.startedAt}`;
}

/** What the target's 429s to paced requests came to, said as what happened, no cause guessed. */
export function limitedNote(report: RunReport): string | undefined {
  const l = report.pacing?.limited;
  if (l === undefined) return undefined;
  const again =
    l.resentLimited === 0
      ? `${l.resentAnswered === 1 ? "it was" : `all ${l.resentAnswered} were`} answered`
      : `${l.resentAnswered} answered, ${l.resentLimited} refused with 429 again (left to their checks)`;
  return (
    `the target answered 429 to ${l.count} request${l.count === 1 ? "" : "s"} the kit had paced under ` +
    `${report.options.rateLimit} per ${formatWindow(report.options.rateWindowMs)} per ${report.options.rateLimitPer} ` +
    `(first: ${l.first}); ${l.count === 1 ? "it" : "each"} was sent again once, after waiting what the target asked ` +
    `(Retry-After, else one window), ${(l.waitedMs / 1000).toFixed(1)} s in all: ${again}`
  );
}

export function renderConsoleReport(report: RunReport, options: ConsoleReportOptions = {}): string {
  const out: string[] = [];
  const o = report.options;
  out.push(
    `Conformance of ${report.target}${report.embedded ? " (embedded reference)" : ""} to the accounting API spec`,
    provenance(report),
    `profile ${o.profile}, strict ${onOff(o.strict)}, read-only ${onOff(o.readOnly)}, seed ${o.seed}, ` +
      `${o.numRuns} runs per property, rate limit ${o.rateLimit} per ${formatWindow(o.rateWindowMs)} ` +
      `per ${o.rateLimitPer}${report.pacing === undefined ? "" : ` (${SOURCE[report.pacing.source]})`}`,
  );
  if (report.baseline !== undefined) out.push(`baseline: ${baselineText(report)}`);
  if (report.pacing?.fellBack !== undefined) out.push(`pacing: ${report.pacing.fellBack}`);
  const limited = limitedNote(report);
  if (limited !== undefined) out.push(`pacing: ${limited}`);
  out.push("");
  const idWidth = Math.min(48, Math.max(0, ...report.results.map((r) => r.id.length)));
  for (const [section, results] of groupBySection(report.results)) {
    out.push(`${section}  (${countsText(results)})`);
    for (const r of results) {
      const reason = r.outcome === "skip" && r.skipReason !== undefined ? ` (skipped: ${r.skipReason})` : "";
      const blocked = r.failure?.blockedBy === undefined ? "" : ` (blocked by ${r.failure.blockedBy})`;
      const ranFor = r.ranFor === undefined ? "" : ` (run for ${r.ranFor.join(", ")}, which --grep selected)`;
      const note =
        r.baseline === "known"
          ? " (known: in the baseline)"
          : r.baseline === "fixed"
            ? " (fixed since the baseline)"
            : r.outcome === "fail" && !r.failsRun
              ? " (does not fail the run)"
              : "";
      out.push(
        `  ${TAG[r.outcome]}  ${r.id.padEnd(idWidth)}  ${r.level.padEnd(9)}  ${r.rule}${reason}${ranFor}${blocked}${note}`,
      );
      if (r.level !== "PROBE")
        for (const obs of r.observations) out.push(`        note: ${oneLine(obs.text)}`);
    }
    out.push("");
  }
  const defects = defectsOf(report.results, (r) => r.baseline !== "known");
  const failing = defects.filter((d) => d.failsRun);
  const lenient = defects.filter((d) => !d.failsRun);
  if (failing.length > 0) {
    out.push(`Failures (${defectCount(failing)})`, "");
    for (const d of failing) out.push(...renderDefect(report, d), "");
  }
  if (lenient.length > 0) {
    out.push(
      `Not met, not failing the run (${defectCount(lenient)}; --strict makes SHOULD failures fail it)`,
      "",
    );
    for (const d of lenient) out.push(...renderDefect(report, d), "");
  }
  const known = report.results.filter((r) => r.baseline === "known");
  if (known.length > 0) {
    out.push(`Known failures, in the baseline (${known.length}; they do not fail the run)`);
    for (const r of known) out.push(`  ${r.id}  [${r.level}]  ${r.failure?.key ?? ""}`);
    out.push("");
  }
  const fixed = report.results.filter((r) => r.baseline === "fixed");
  if (fixed.length > 0) {
    out.push(`Fixed since the baseline (${fixed.length}; write a new baseline to keep them fixed)`);
    for (const r of fixed) out.push(`  ${r.id}  [${r.level}]`);
    out.push("");
  }
  const probes = report.results.filter((r) => r.level === "PROBE" && r.outcome === "observed");
  if (probes.length > 0) out.push(renderProbeTable(probes, options.catalogue), "");
  if (options.catalogue !== undefined) out.push(renderCoverage(options.catalogue), "");
  out.push(renderSummaryLine(report));
  return out.join("\n") + "\n";
}

/** `1 distinct failure; 9 more checks blocked by it`. */
function defectCount(defects: readonly Defect[]): string {
  const blocked = defects.reduce((sum, d) => sum + d.blocked.length, 0);
  const n = defects.length;
  const head = `${n} distinct failure${n === 1 ? "" : "s"}`;
  return blocked === 0
    ? head
    : `${head}; ${blocked} more check${blocked === 1 ? "" : "s"} failed only because of ${n === 1 ? "it" : "them"}`;
}

function baselineText(report: RunReport): string {
  const b = report.baseline;
  if (b === undefined) return "";
  return `${b.file} (kit ${b.kitVersion}): ${b.known} known, ${b.new} new, ${b.fixed.length} fixed`;
}

/** One defect: its head in full, then every failure blocked by it, one line each. */
function renderDefect(report: RunReport, d: Defect): string[] {
  const lines = renderFailure(report, d.head);
  if (d.blocked.length === 0) return lines;
  const rule = d.rule === undefined ? undefined : FOUNDATIONS[d.rule];
  const why =
    d.rule === undefined || rule === undefined
      ? "the rule this check judges"
      : `${d.rule} (${formatClauses(rule.clause)}): ${rule.says}`;
  const width = Math.min(48, Math.max(0, ...d.blocked.map((r) => r.id.length)));
  lines.push(
    ...field(
      "blocked",
      [
        `${d.blocked.length} more check${d.blocked.length === 1 ? "" : "s"} failed only because of ${why}`,
        ...d.blocked.map(
          (r) =>
            `${r.id.padEnd(width)}  ${r.level.padEnd(9)}  ${r.failure?.key ?? ""}${r.failsRun ? "" : "  (does not fail the run)"}`,
        ),
      ].join("\n"),
    ),
  );
  return lines;
}

/** Each clause a result cites, with the spec's own words for it: `§8.2 “Page size (limit) · …”`. */
export function clauseLines(ids: readonly string[]): string[] {
  return ids.map((id) => {
    const quote = clauseById(id)?.quote;
    return quote === undefined ? id : `${id} “${quoteText(quote)}”`;
  });
}

function renderFailure(report: RunReport, r: CheckResult): string[] {
  const f = r.failure;
  const lines = [
    `FAIL ${r.id}  [${r.level}]  ${r.section}`,
    ...field("clauses", clauseLines(r.clauses).join("\n")),
    ...field("rule", r.rule),
  ];
  if (f !== undefined) {
    lines.push(
      ...field("problem", f.message),
      ...field("expected", f.expected),
      ...field("actual", f.actual),
    );
    if (f.cause !== "rule") lines.push(...field("cause", causeText(f.cause)));
    if (f.status !== undefined) lines.push(...field("status", String(f.status)));
    if (f.curl !== undefined) lines.push(...field("curl", f.curl));
    if (f.replay !== undefined) lines.push(...field("counterexample", f.replay));
  }
  lines.push(...field("replay", replayCommand(report, r.id)));
  return lines;
}

/** A cause as a reader needs it: the foundation rule and what it says, or that the check stopped. */
export function causeText(cause: Cause): string {
  if (cause === "rule") return "the check's own rule";
  if (cause === "error") return "the check stopped on an error before its verdict";
  return `${cause}: ${FOUNDATIONS[cause].says}`;
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

/**
 * The last line: the verdict, the distinct failures that fail the run (a foundation's failure and the
 * checks blocked by it count once), the outcome counts, the baseline's tally, requests, time and seed.
 */
export function renderSummaryLine(report: RunReport): string {
  const failing = defectsOf(report.results, (r) => r.baseline !== "known").filter((d) => d.failsRun);
  const verdict = failing.length > 0 ? "FAILED" : "PASSED";
  const failingRun = report.results.filter((r) => r.failsRun).length;
  const failed = report.results.filter((r) => r.outcome === "fail").length;
  const headline = failing.length > 0 ? `${defectCount(failing)}; ` : "";
  const failNote = failed > 0 ? ` (${failingRun} failing the run)` : "";
  const counts = `${countOf(report.results, "pass")} passed, ${failed} failed${failNote}, ${countOf(report.results, "skip")} skipped, ${countOf(report.results, "observed")} observed`;
  const b = report.baseline;
  const baseline =
    b === undefined ? "" : `; baseline: ${b.known} known, ${b.new} new, ${b.fixed.length} fixed`;
  const seconds = (report.durationMs / 1000).toFixed(1);
  return `${verdict}: ${headline}${counts}${baseline}; ${report.requests} requests in ${seconds} s; seed ${report.options.seed}`;
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

export function formatWindow(ms: number): string {
  if (ms === 60_000) return "minute";
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

/** Line breaks folded into spaces: a table cell, an error said in one line. */
export function oneLine(text: string): string {
  return text.replace(/\s*[\r\n]+\s*/g, " ").trim();
}
