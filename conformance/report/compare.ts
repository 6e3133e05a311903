import type { Level, Observation, Outcome, RunReport } from "../types.js";
import { compareSections, oneLine } from "./console.js";

/**
 * `conformance compare`: several runs' reports side by side, so that a spec author sees at once where
 * implementations differ, check by check and open point by open point.
 */

export interface ComparedTarget {
  /** A, B, C…: the column's name. */
  label: string;
  file: string;
  report: RunReport;
}

export interface ComparedRow {
  id: string;
  section: string;
  level: Level;
  rule: string;
  /** Per target, in column order; undefined when the check is not in that report. */
  outcomes: Array<Outcome | undefined>;
  /** Per target: what it did (PROBE observations, notes), in column order. */
  observations: Observation[][];
  /** The targets answered differently: other outcomes, or (for a PROBE) observations of other keys. */
  differs: boolean;
}

export interface Comparison {
  targets: ComparedTarget[];
  rows: ComparedRow[];
}

/**
 * What a target did on an open point, as its observations' keys say it: the keys leave out what
 * changes from run to run (the marker, times, counters, ids), so equal keys mean the same behaviour.
 */
const behaviour = (observations: readonly Observation[]): string => observations.map((o) => o.key).join("\n");

const label = (i: number): string =>
  i < 26
    ? String.fromCharCode(65 + i)
    : `${String.fromCharCode(65 + Math.floor(i / 26) - 1)}${String.fromCharCode(65 + (i % 26))}`;

export function compareReports(inputs: ReadonlyArray<{ file: string; report: RunReport }>): Comparison {
  const targets = inputs.map((input, i) => ({ label: label(i), ...input }));
  const order = new Map<string, { section: string; level: Level; rule: string }>();
  for (const { report } of targets) {
    for (const r of report.results) if (!order.has(r.id)) order.set(r.id, r);
  }
  const ids = [...order.keys()];
  const firstSeen = new Map(ids.map((id, i) => [id, i]));
  ids.sort(
    (a, b) =>
      compareSections(order.get(a)?.section ?? "", order.get(b)?.section ?? "") ||
      (firstSeen.get(a) ?? 0) - (firstSeen.get(b) ?? 0),
  );
  const rows = ids.map((id): ComparedRow => {
    const first = order.get(id) ?? { section: "", level: "MUST" as Level, rule: "" };
    const results = targets.map((t) => t.report.results.find((r) => r.id === id));
    const outcomes = results.map((r) => r?.outcome);
    const observations = results.map((r) => r?.observations ?? []);
    const seen = outcomes.filter((o): o is Outcome => o !== undefined);
    const saidDifferently = first.level === "PROBE" && new Set(observations.map(behaviour)).size > 1;
    return {
      id,
      section: first.section,
      level: first.level,
      rule: first.rule,
      outcomes,
      observations,
      differs: new Set(seen).size > 1 || seen.length < targets.length || saidDifferently,
    };
  });
  return { targets, rows };
}

const CELL: Record<Outcome, string> = { pass: "pass", fail: "FAIL", skip: "skip", observed: "obs" };

/** The comparison as text: a legend, one line per check, then what each target did on each open point. */
export function renderComparison(c: Comparison): string {
  const out: string[] = [`Comparison of ${c.targets.length} conformance reports`, ""];
  for (const t of c.targets) {
    const o = t.report.options;
    const failing = t.report.results.filter((r) => r.failsRun).length;
    out.push(
      `  ${t.label} = ${t.file}: ${t.report.target}${t.report.embedded ? " (embedded reference)" : ""}, profile ${o.profile}, seed ${o.seed}, ${failing === 0 ? "PASSED" : `FAILED (${failing})`}`,
    );
  }
  out.push("");
  const idWidth = Math.min(48, Math.max(5, ...c.rows.map((r) => r.id.length)));
  const head = `  ${"check".padEnd(idWidth)}  ${"level".padEnd(9)}  ${c.targets.map((t) => t.label.padEnd(4)).join("  ")}`;
  out.push(head);
  for (const r of c.rows) {
    const cells = r.outcomes.map((o) => (o === undefined ? "-" : CELL[o]).padEnd(4)).join("  ");
    out.push(`  ${r.id.padEnd(idWidth)}  ${r.level.padEnd(9)}  ${cells}${r.differs ? "  <- differs" : ""}`);
  }
  const differing = c.rows.filter((r) => r.differs).length;
  out.push(
    "",
    `${differing} of ${c.rows.length} checks differ between the targets ("-": not in that report).`,
    "",
  );
  const probes = c.rows.filter((r) => r.level === "PROBE");
  if (probes.length > 0) {
    out.push("Open points (PROBE): what each target did", "");
    for (const r of probes) {
      out.push(`${r.id}${r.differs ? "  <- differs" : ""}`, `  ${r.rule}`);
      r.observations.forEach((obs, i) => {
        const said = obs.length === 0 ? "(nothing recorded)" : obs.map((o) => oneLine(o.text)).join(" ");
        out.push(`  ${c.targets[i]?.label ?? "?"}: ${said}`);
      });
      out.push("");
    }
  }
  return `${out.join("\n")}\n`;
}
