import type { Outcome, RunReport } from "../types.js";
import { compareReports, type Comparison } from "./compare.js";
import { causeText, provenance, replayCommand } from "./console.js";

/**
 * One self-contained HTML page (inline style, no script, no external asset): the outcome of every
 * check per target, side by side, what each target did on each open point, and every failure with the
 * curl commands and the `npx conformance` command that replay it. One report is a run; several are a
 * comparison (`conformance compare --reporter html`).
 */

const ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};
export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);

const STYLE = `
body { font: 14px/1.45 system-ui, sans-serif; margin: 2rem; color: #1d1d1f; }
h1 { font-size: 1.4rem; } h2 { font-size: 1.15rem; margin-top: 2rem; } h3 { font-size: 1rem; }
table { border-collapse: collapse; margin: .5rem 0; }
th, td { border: 1px solid #d2d2d7; padding: .25rem .5rem; text-align: left; vertical-align: top; }
th { background: #f5f5f7; }
td.pass { background: #e3f5e1; } td.fail { background: #fbe0de; font-weight: 600; }
td.skip { background: #f5f5f7; color: #6e6e73; } td.observed { background: #e8f0fb; } td.absent { color: #6e6e73; }
tr.differs td.id { border-left: 4px solid #d70015; }
pre { background: #f5f5f7; padding: .5rem; overflow-x: auto; white-space: pre-wrap; word-break: break-all; }
.muted { color: #6e6e73; } dl { display: grid; grid-template-columns: max-content 1fr; gap: .2rem 1rem; }
dt { font-weight: 600; } dd { margin: 0; }
`;

const CELL: Record<Outcome, string> = { pass: "pass", fail: "FAIL", skip: "skip", observed: "observed" };

function summary(c: Comparison): string {
  const rows = c.targets.map((t) => {
    const r = t.report;
    const count = (o: Outcome) => r.results.filter((x) => x.outcome === o).length;
    const failing = r.results.filter((x) => x.failsRun).length;
    return `<tr><th>${escapeHtml(t.label)}</th><td>${escapeHtml(r.target)}${r.embedded ? " (embedded reference)" : ""}<br><span class="muted">${escapeHtml(t.file)}</span></td><td>${failing === 0 ? "PASSED" : `FAILED (${failing})`}</td><td>${count("pass")} passed, ${count("fail")} failed, ${count("skip")} skipped, ${count("observed")} observed</td><td>profile ${r.options.profile}${r.options.strict ? ", strict" : ""}${r.options.readOnly ? ", read-only" : ""}, seed ${r.options.seed}<br><span class="muted">${escapeHtml(provenance(r))}</span>${r.baseline === undefined ? "" : `<br>baseline ${escapeHtml(r.baseline.file)}: ${r.baseline.known} known, ${r.baseline.new} new, ${r.baseline.fixed.length} fixed`}</td><td>${r.requests} requests in ${(r.durationMs / 1000).toFixed(1)} s, ${r.options.rateLimit} per ${r.options.rateWindowMs / 1000} s per ${r.options.rateLimitPer}</td></tr>`;
  });
  return `<table><tr><th></th><th>target</th><th>verdict</th><th>checks</th><th>options</th><th>requests</th></tr>${rows.join("")}</table>`;
}

function outcomes(c: Comparison): string {
  const head = `<tr><th>check</th><th>level</th><th>section</th>${c.targets.map((t) => `<th>${escapeHtml(t.label)}</th>`).join("")}</tr>`;
  const rows = c.rows.map((r) => {
    const cells = r.outcomes
      .map((o) => (o === undefined ? `<td class="absent">-</td>` : `<td class="${o}">${CELL[o]}</td>`))
      .join("");
    const differs = c.targets.length > 1 && r.differs;
    return `<tr${differs ? ' class="differs"' : ""}><td class="id" title="${escapeHtml(r.rule)}"><code>${escapeHtml(r.id)}</code></td><td>${r.level}</td><td>${escapeHtml(r.section)}</td>${cells}</tr>`;
  });
  const differing = c.rows.filter((r) => r.differs).length;
  const note =
    c.targets.length > 1
      ? `<p>${differing} of ${c.rows.length} checks differ between the targets (marked at the left).</p>`
      : "";
  return `${note}<table>${head}${rows.join("")}</table>`;
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

function failures(c: Comparison): string {
  const blocks = c.targets.flatMap((t) =>
    t.report.results
      .filter((r) => r.outcome === "fail")
      .map((r) => {
        const f = r.failure;
        const items: Array<[string, string]> = [
          ["rule", escapeHtml(r.rule)],
          ...(f === undefined
            ? []
            : ([
                ...(f.blockedBy === undefined
                  ? []
                  : [
                      [
                        "blocked by",
                        `<code>${escapeHtml(f.blockedBy)}</code>: this check failed only because of its defect`,
                      ],
                    ]),
                ["problem", escapeHtml(f.message)],
                ["cause", escapeHtml(causeText(f.cause))],
                ["expected", escapeHtml(f.expected)],
                ["actual", escapeHtml(f.actual)],
                ...(f.status === undefined ? [] : [["status", String(f.status)]]),
                ...(f.replay === undefined ? [] : [["counterexample", escapeHtml(f.replay)]]),
              ] as Array<[string, string]>)),
        ];
        const curl =
          f?.curl === undefined
            ? ""
            : `<h4>curl (replays the sequence, as sent)</h4><pre>${escapeHtml(f.curl)}</pre>`;
        const replay = `<h4>replay</h4><pre>${escapeHtml(replayCommand(t.report, r.id))}</pre>`;
        const dl = items.map(([k, v]) => `<dt>${k}</dt><dd>${v}</dd>`).join("");
        const lenient =
          r.baseline === "known"
            ? ' <span class="muted">(known: in the baseline)</span>'
            : r.failsRun
              ? ""
              : ' <span class="muted">(does not fail the run)</span>';
        return `<section><h3>${escapeHtml(t.label)}: <code>${escapeHtml(r.id)}</code> [${r.level}] ${escapeHtml(r.section)}${lenient}</h3><dl>${dl}</dl>${curl}${replay}</section>`;
      }),
  );
  return blocks.length === 0 ? "<p>No check failed.</p>" : blocks.join("");
}

export function renderHtmlReport(inputs: ReadonlyArray<{ file: string; report: RunReport }>): string {
  const c = compareReports(inputs);
  const title =
    c.targets.length === 1
      ? `Conformance of ${c.targets[0]?.report.target ?? ""}`
      : `Conformance of ${c.targets.length} implementations, side by side`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title><style>${STYLE}</style></head>
<body><h1>${escapeHtml(title)}</h1>
<p class="muted">Accounting API spec (accounting-api.md). MUST failures fail a run, SHOULD failures only with --strict, REFERENCE checks run only with --profile reference, PROBE checks show an open point and never fail.</p>
<h2>Targets</h2>${summary(c)}
<h2>Checks</h2>${outcomes(c)}
<h2>Open points: what each target did</h2>${openPoints(c)}
<h2>Failures and their replays</h2>${failures(c)}
</body></html>
`;
}
