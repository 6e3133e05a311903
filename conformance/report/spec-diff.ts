import type { Spec } from "../../spec/schema.js";
import { diffSpecs, type SpecDifference } from "../../spec/variant.js";
import { CLAUSES, clauseList } from "../spec/clauses.js";
import { CLAUSE_READS, EVERY_CHECK_READS, touching, type SpecKey } from "../spec/reads.js";
import type { Check } from "../types.js";
import { showSpecValue } from "./clause-document.js";

/**
 * `conformance spec-diff A.json B.json`: the spec author's what-if. The keys whose values differ between
 * two spec files (diffSpecs), and the clauses and checks whose expectations rest on them: a clause reads
 * what CLAUSE_READS says, a check what its clauses read and what its own `reads` adds.
 */

export interface SpecDiffRow {
  /** A clause id or a check id. */
  id: string;
  /** The check's level; undefined for a clause. */
  level?: string;
  /** The differing keys it reads. */
  keys: string[];
}

export interface SpecDiff {
  differences: SpecDifference[];
  clauses: SpecDiffRow[];
  checks: SpecDiffRow[];
  /** Differences every check reads (the endpoints' paths): listed once, not per check. */
  everyCheck: SpecDifference[];
}

/** What a check reads of the spec: its clauses' keys and its own. */
export const checkReads = (check: Check): SpecKey[] => [
  ...new Set([...clauseList(check.clause).flatMap((id) => CLAUSE_READS[id] ?? []), ...(check.reads ?? [])]),
];

const row = (
  id: string,
  keys: readonly SpecKey[],
  differences: readonly SpecDifference[],
  level?: string,
) => {
  const touched = touching(keys, differences).map((d) => d.path);
  return touched.length === 0 ? [] : [{ id, ...(level === undefined ? {} : { level }), keys: touched }];
};

export function specDiff(a: Spec, b: Spec, catalogue: readonly Check[]): SpecDiff {
  const differences = diffSpecs(a, b).filter((d) => d.path !== "title" && !d.path.startsWith("source"));
  return {
    differences,
    clauses: CLAUSES.flatMap((c) => row(c.id, CLAUSE_READS[c.id] ?? [], differences)),
    checks: catalogue.flatMap((c) => row(c.id, checkReads(c), differences, c.level)),
    everyCheck: touching(EVERY_CHECK_READS, differences),
  };
}

export function renderSpecDiff(diff: SpecDiff, names: readonly [string, string]): string {
  const [a, b] = names;
  if (diff.differences.length === 0) return `${a} and ${b} hold the same values: no expectation differs.\n`;
  const width = (rows: readonly SpecDiffRow[]) => Math.max(0, ...rows.map((r) => r.id.length));
  const lines = [
    `${diff.differences.length} key(s) differ between ${a} and ${b}:`,
    ...diff.differences.map((d) => `  ${d.path}: ${showSpecValue(d.a)} → ${showSpecValue(d.b)}`),
    "",
    `Clauses whose expectations differ (${diff.clauses.length}):`,
    ...diff.clauses.map((r) => `  ${r.id.padEnd(width(diff.clauses))}  ${r.keys.join(", ")}`),
    "",
    `Checks whose expectations differ (${diff.checks.length}):`,
    ...diff.checks.map(
      (r) => `  ${r.id.padEnd(width(diff.checks))}  ${(r.level ?? "").padEnd(9)}  ${r.keys.join(", ")}`,
    ),
  ];
  if (diff.everyCheck.length > 0)
    lines.push(
      "",
      `Every check addresses the endpoints by their paths, which differ: ${diff.everyCheck.map((d) => d.path).join(", ")}.`,
    );
  return `${lines.join("\n")}\n`;
}
