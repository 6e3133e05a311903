import { FOUNDATIONS } from "../failures.js";
import { clauseById, formatClauses, quoteText } from "../spec/clauses.js";
import { LEVELS, type CheckResult, type Level, type Outcome, type RunReport } from "../types.js";
import { compareReports, type ComparedRow, type ComparedTarget, type Comparison } from "./compare.js";
import { causeText, compareSections, provenance, replayCommand } from "./console.js";
import { defectsOf, type Defect } from "./defects.js";
import { exchangeText } from "./exchange.js";
import { FONT_LICENSE, REPORT_FONT } from "./font.js";

/**
 * One self-contained HTML page (inline style, no script, no external asset), read failures first: each
 * failure with its clauses and the spec's own words for them, its rule, the exchange that shows it and
 * the curl command that replays it, every other failure of the same defect listed under it; then the
 * table of checks, each skipped one with its reason; then what each target did on each open point, and
 * the coverage by section and level. One report is a run; several are a comparison (`conformance
 * compare --reporter html`), whose rows that differ between targets are marked at the left.
 */

const ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};
export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);

/** Ranges of code points as CSS `unicode-range` writes them: `U+3000-3003, U+FF01-FF5E`. */
function unicodeRange(points: readonly number[]): string {
  const ranges: Array<[number, number]> = [];
  for (const p of points) {
    const last = ranges[ranges.length - 1];
    if (last !== undefined && p === last[1] + 1) last[1] = p;
    else ranges.push([p, p]);
  }
  const hex = (n: number): string => n.toString(16).toUpperCase();
  return ranges.map(([a, b]) => (a === b ? `U+${hex(a)}` : `U+${hex(a)}-${hex(b)}`)).join(", ");
}

const FONT_POINTS = new Set<number>(REPORT_FONT.codePoints);
const FONT_FAMILY = `"${REPORT_FONT.family}"`;

/**
 * The report's own CJK font (report/font.ts), when the page holds one of its characters: a full-width
 * digit the kit sent (limit=９), a name in 日本語 echoed back. Named first, limited to its characters by
 * unicode-range, so that those draw the same on every machine, one without a CJK font included.
 */
function fontFace(body: string): string {
  if (![...body].some((c) => FONT_POINTS.has(c.codePointAt(0) ?? 0))) return "";
  // The font travels with its notice and license, as the SIL Open Font License asks of every copy.
  const notice = `${REPORT_FONT.copyright}\n\n${FONT_LICENSE}`.replace(/\*\//g, "* /");
  return `/*\n${notice}\n*/\n@font-face { font-family: ${FONT_FAMILY}; src: url(data:font/ttf;base64,${REPORT_FONT.ttfBase64}) format("truetype"); unicode-range: ${unicodeRange(REPORT_FONT.codePoints)}; }`;
}

const STYLE = `
body { font: 14px/1.45 ${FONT_FAMILY}, system-ui, sans-serif; margin: 2rem; color: #1d1d1f; max-width: 80rem; }
code, pre { font-family: ${FONT_FAMILY}, ui-monospace, "DejaVu Sans Mono", monospace; }
h1 { font-size: 1.4rem; } h2 { font-size: 1.15rem; margin-top: 2rem; } h3 { font-size: 1rem; margin: 0 0 .5rem; }
h4 { font-size: .9rem; margin: .75rem 0 .25rem; }
table { border-collapse: collapse; margin: .5rem 0; }
th, td { border: 1px solid #d2d2d7; padding: .25rem .5rem; text-align: left; vertical-align: top; }
th { background: #f5f5f7; }
td.pass { background: #e3f5e1; } td.fail { background: #fbe0de; font-weight: 600; }
td.skip { background: #f5f5f7; color: #6e6e73; } td.observed { background: #e8f0fb; } td.absent { color: #6e6e73; }
td .why { font-weight: normal; font-size: .85em; color: #3a3a3c; }
tr.differs td.id { border-left: 4px solid #d70015; }
pre { background: #f5f5f7; padding: .5rem; overflow-x: auto; white-space: pre-wrap; word-break: break-all; margin: 0; }
.muted { color: #6e6e73; } dl { display: grid; grid-template-columns: max-content 1fr; gap: .2rem 1rem; margin: .5rem 0; }
dt { font-weight: 600; } dd { margin: 0; }
section.failure { border: 1px solid #d2d2d7; border-left: 6px solid #d70015; padding: .75rem 1rem; margin: 1rem 0; }
section.failure.lenient { border-left-color: #ff9f0a; }
.tag { display: inline-block; padding: 0 .4rem; border-radius: .2rem; background: #d70015; color: #fff; font-size: .8rem; }
.lenient .tag { background: #ff9f0a; }
ul.clauses { list-style: none; padding: 0; margin: .25rem 0; }
ul.clauses li { margin: .25rem 0; }
blockquote.spec { margin: .1rem 0 0 1rem; padding-left: .5rem; border-left: 3px solid #86868b; font-style: italic; }
`;

const CELL: Record<Outcome, string> = { pass: "pass", fail: "FAIL", skip: "skip", observed: "observed" };

const count = (results: readonly CheckResult[], o: Outcome): number =>
  results.filter((x) => x.outcome === o).length;

function summary(c: Comparison): string {
  const rows = c.targets.map((t) => {
    const r = t.report;
    const failing = defectsOf(r.results, (x) => x.baseline !== "known").filter((d) => d.failsRun).length;
    const verdict =
      failing === 0 ? "PASSED" : `FAILED (${failing} distinct failure${failing === 1 ? "" : "s"})`;
    return `<tr><th>${escapeHtml(t.label)}</th><td>${escapeHtml(r.target)}${r.embedded ? " (embedded reference)" : ""}<br><span class="muted">${escapeHtml(t.file)}</span></td><td>${verdict}</td><td>${count(r.results, "pass")} passed, ${count(r.results, "fail")} failed, ${count(r.results, "skip")} skipped, ${count(r.results, "observed")} observed</td><td>profile ${r.options.profile}${r.options.strict ? ", strict" : ""}${r.options.readOnly ? ", read-only" : ""}, seed ${r.options.seed}<br><span class="muted">${escapeHtml(provenance(r))}</span>${r.baseline === undefined ? "" : `<br>baseline ${escapeHtml(r.baseline.file)}: ${r.baseline.known} known, ${r.baseline.new} new, ${r.baseline.fixed.length} fixed`}</td><td>${r.requests} requests in ${(r.durationMs / 1000).toFixed(1)} s, ${r.options.rateLimit} per ${r.options.rateWindowMs / 1000} s per ${r.options.rateLimitPer}</td></tr>`;
  });
  return `<table><tr><th></th><th>target</th><th>verdict</th><th>checks</th><th>options</th><th>requests</th></tr>${rows.join("")}</table>`;
}

/** Each clause a result cites, with the spec's own words for it (spec/clauses.ts). */
export function clauseItems(ids: readonly string[]): string {
  const items = ids.map((id) => {
    const clause = clauseById(id);
    if (clause === undefined) return `<li><b>${escapeHtml(id)}</b></li>`;
    return `<li><b>${escapeHtml(id)}</b> <span class="muted">${escapeHtml(clause.says)}</span><blockquote class="spec">${escapeHtml(quoteText(clause.quote))}</blockquote></li>`;
  });
  return `<ul class="clauses">${items.join("")}</ul>`;
}

const pre = (cls: string, text: string): string => `<pre class="${cls}">${escapeHtml(text)}</pre>`;

function failureSection(t: ComparedTarget, d: Defect, several: boolean): string {
  const r = d.head;
  const f = r.failure;
  const lenient = !d.failsRun;
  const note =
    r.baseline === "known"
      ? ' <span class="muted">(known: in the baseline)</span>'
      : lenient
        ? ' <span class="muted">(does not fail the run)</span>'
        : "";
  const items: Array<[string, string]> =
    f === undefined
      ? []
      : [
          ["problem", escapeHtml(f.message)],
          ["expected", escapeHtml(f.expected)],
          ["actual", escapeHtml(f.actual)],
          ...(f.cause === "rule"
            ? []
            : ([["cause", escapeHtml(causeText(f.cause))]] as Array<[string, string]>)),
          ...(f.replay === undefined
            ? []
            : ([["counterexample", escapeHtml(f.replay)]] as Array<[string, string]>)),
        ];
  const dl = items.map(([k, v]) => `<dt>${k}</dt><dd>${v}</dd>`).join("");
  const exchange =
    f?.exchange === undefined
      ? f?.status === undefined
        ? ""
        : `<h4>Exchange</h4>${pre("exchange", `(answered ${f.status}; this report does not hold the exchange)`)}`
      : `<h4>Exchange</h4>${pre("exchange", exchangeText(f.exchange))}`;
  const curl = f?.curl === undefined ? "" : `<h4>curl: replays it, as sent</h4>${pre("curl", f.curl)}`;
  const replay = `<h4>Run this check again</h4>${pre("replay", replayCommand(t.report, r.id))}`;
  const blocked = d.blocked.length === 0 ? "" : blockedList(d);
  const who = several ? `${escapeHtml(t.label)}: ` : "";
  return `<section class="failure${lenient ? " lenient" : ""}" id="fail-${escapeHtml(t.label)}-${escapeHtml(r.id)}"><h3><span class="tag">FAIL</span> ${who}<code>${escapeHtml(r.id)}</code> [${r.level}] ${escapeHtml(r.section)}${note}</h3>${clauseItems(r.clauses)}<p><b>Rule:</b> ${escapeHtml(r.rule)}</p><dl>${dl}</dl>${exchange}${curl}${replay}${blocked}</section>`;
}

function blockedList(d: Defect): string {
  const rule = d.rule === undefined ? undefined : FOUNDATIONS[d.rule];
  const why =
    d.rule === undefined || rule === undefined
      ? "the same defect"
      : `<code>${escapeHtml(d.rule)}</code> (${escapeHtml(rule.clause.join(", "))}): ${escapeHtml(rule.says)}`;
  const rows = d.blocked.map(
    (b) =>
      `<tr><td><code>${escapeHtml(b.id)}</code></td><td>${b.level}</td><td>${escapeHtml(formatClauses(b.clauses))}</td><td>${escapeHtml(b.failure?.key ?? "")}${b.failsRun ? "" : ' <span class="muted">(does not fail the run)</span>'}</td></tr>`,
  );
  return `<h4>${d.blocked.length} more check${d.blocked.length === 1 ? "" : "s"} failed only because of it</h4><p>They broke ${why}</p><table><tr><th>check</th><th>level</th><th>clauses</th><th>what broke</th></tr>${rows.join("")}</table>`;
}

function failures(c: Comparison): string {
  const several = c.targets.length > 1;
  const blocks = c.targets.flatMap((t) => {
    const defects = defectsOf(t.report.results, (r) => r.baseline !== "known");
    const ordered = [...defects.filter((d) => d.failsRun), ...defects.filter((d) => !d.failsRun)];
    const known = t.report.results.filter((r) => r.baseline === "known");
    return [
      ...ordered.map((d) => failureSection(t, d, several)),
      ...(known.length === 0
        ? []
        : [
            `<p>${several ? `${escapeHtml(t.label)}: ` : ""}known failures, in the baseline (they do not fail the run): ${known.map((r) => `<code>${escapeHtml(r.id)}</code>`).join(", ")}</p>`,
          ]),
    ];
  });
  return blocks.length === 0 ? "<p>No check failed.</p>" : blocks.join("");
}

/** Why a result is what it is, beside its outcome: a skip's reason, who it ran for, what blocked it. */
function why(r: CheckResult | undefined): string {
  if (r === undefined) return "";
  const notes = [
    ...(r.outcome === "skip" ? [`skipped: ${r.skipReason ?? "no reason given"}`] : []),
    ...(r.ranFor === undefined ? [] : [`run for ${r.ranFor.join(", ")}, which --grep selected`]),
    ...(r.failure?.blockedBy === undefined ? [] : [`blocked by ${r.failure.blockedBy}`]),
    ...(r.baseline === "known"
      ? ["known: in the baseline"]
      : r.baseline === "fixed"
        ? ["fixed since the baseline"]
        : []),
  ];
  return notes.length === 0 ? "" : `<div class="why">${escapeHtml(notes.join("; "))}</div>`;
}

function outcomes(c: Comparison): string {
  const head = `<tr><th>check</th><th>level</th><th>section</th><th>rule</th>${c.targets.map((t) => `<th>${escapeHtml(t.label)}</th>`).join("")}</tr>`;
  const rows = c.rows.map((r) => {
    const cells = r.outcomes
      .map((o, i) => {
        if (o === undefined) return `<td class="absent">-</td>`;
        const result = c.targets[i]?.report.results.find((x) => x.id === r.id);
        return `<td class="${o}">${CELL[o]}${why(result)}</td>`;
      })
      .join("");
    const differs = c.targets.length > 1 && r.differs;
    return `<tr${differs ? ' class="differs"' : ""}><td class="id"><code>${escapeHtml(r.id)}</code></td><td>${r.level}</td><td>${escapeHtml(r.section)}</td><td>${escapeHtml(r.rule)}</td>${cells}</tr>`;
  });
  const differing = c.rows.filter((r) => r.differs).length;
  const note =
    c.targets.length > 1
      ? `<p>${differing} of ${c.rows.length} checks differ between the targets (marked at the left).</p>`
      : "";
  return `${note}<table class="checks">${head}${rows.join("")}</table>`;
}

function openPoints(c: Comparison): string {
  const probes = c.rows.filter((r) => r.level === "PROBE");
  if (probes.length === 0) return "<p>No open point was probed.</p>";
  const head = `<tr><th>open point</th>${c.targets.map((t) => `<th>${escapeHtml(t.label)}</th>`).join("")}</tr>`;
  const rows = probes.map((r) => {
    const cells = r.observations
      .map(
        (obs) =>
          `<td>${obs.length === 0 ? '<span class="muted">(nothing recorded)</span>' : obs.map((o) => escapeHtml(o.text)).join("<br>")}</td>`,
      )
      .join("");
    const differs = c.targets.length > 1 && r.differs;
    return `<tr${differs ? ' class="differs"' : ""}><td class="id"><code>${escapeHtml(r.id)}</code><br>${escapeHtml(r.rule)}</td>${cells}</tr>`;
  });
  return `<table>${head}${rows.join("")}</table>`;
}

/** The checks of the report by section and level, and how each target's came out, section by section. */
function coverageTable(c: Comparison): string {
  const sections = [...new Set(c.rows.map((r) => r.section))].sort(compareSections);
  const outcomeCell = (rows: readonly ComparedRow[], i: number): string => {
    const got = rows.map((r) => r.outcomes[i]).filter((o): o is Outcome => o !== undefined);
    const n = (o: Outcome): number => got.filter((x) => x === o).length;
    return `<td>${n("pass")} passed, ${n("fail")} failed, ${n("skip")} skipped, ${n("observed")} observed</td>`;
  };
  const head = `<tr><th>section</th>${LEVELS.map((l) => `<th>${l}</th>`).join("")}<th>checks</th>${c.targets.map((t) => `<th>${escapeHtml(t.label)}</th>`).join("")}</tr>`;
  const rows = sections.map((s) => {
    const here = c.rows.filter((r) => r.section === s);
    const byLevel = (l: Level): number => here.filter((r) => r.level === l).length;
    return `<tr><td>${escapeHtml(s)}</td>${LEVELS.map((l) => `<td>${byLevel(l)}</td>`).join("")}<td>${here.length}</td>${c.targets.map((_, i) => outcomeCell(here, i)).join("")}</tr>`;
  });
  return `<table class="coverage">${head}${rows.join("")}</table><p class="muted">Which clause of the spec each check holds a target to, and which clauses no check covers: the clause document (docs/conformance-clauses.md, or <code>npx conformance --list --format markdown</code>).</p>`;
}

export function renderHtmlReport(inputs: ReadonlyArray<{ file: string; report: RunReport }>): string {
  const c = compareReports(inputs);
  const title =
    c.targets.length === 1
      ? `Conformance of ${c.targets[0]?.report.target ?? ""}`
      : `Conformance of ${c.targets.length} implementations, side by side`;
  const body = `<body><h1>${escapeHtml(title)}</h1>
<p class="muted">Accounting API spec (accounting-api.md). MUST failures fail a run, SHOULD failures only with --strict, REFERENCE checks run only with --profile reference, PROBE checks show an open point and never fail. Failures come first, each with the clauses it breaks in the spec's own words, the exchange that shows it and the curl command that replays it; then every check; then the open points and the coverage.</p>
<h2>Targets</h2>${summary(c)}
<h2 id="failures">Failures</h2>${failures(c)}
<h2 id="checks">Checks</h2>${outcomes(c)}
<h2 id="open-points">Open points: what each target did</h2>${openPoints(c)}
<h2 id="coverage">Coverage by section and level</h2>${coverageTable(c)}
</body>`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title><style>${fontFace(body)}${STYLE}</style></head>
${body}</html>
`;
}
