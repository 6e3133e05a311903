import type { BaselineSummary, CheckResult } from "../types.js";
import { ReportFileError, readReport } from "./read.js";

/**
 * `--baseline FILE`: a JSON report of an earlier run (`--reporter json:FILE`). A failure already in it
 * is known and does not fail the run; a failure that is not is new; a check that failed in it and passes
 * now is fixed. Failures are matched by check id and stable key (failures.ts), never by their text,
 * so that another seed, marker or target state does not turn a known failure into a new one.
 */

export interface Baseline {
  file: string;
  /** The kit version that wrote it; "unknown" for a report from before versions. */
  kitVersion: string;
  /** Every check id the baseline run reported, whatever its outcome. */
  ids: ReadonlySet<string>;
  /** Per check id, the keys of its failures. */
  failures: ReadonlyMap<string, ReadonlySet<string>>;
}

/** A baseline that cannot be used; the message is one line. */
export class BaselineError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "BaselineError";
  }
}

export async function readBaseline(file: string): Promise<Baseline> {
  let report;
  try {
    report = await readReport(file);
  } catch (error) {
    if (error instanceof ReportFileError) throw new BaselineError(`baseline: ${error.message}`);
    throw error;
  }
  const failures = new Map<string, Set<string>>();
  for (const r of report.results) {
    if (r.outcome !== "fail" || r.failure === undefined) continue;
    const keys = failures.get(r.id) ?? new Set<string>();
    keys.add(r.failure.key);
    failures.set(r.id, keys);
  }
  return {
    file,
    kitVersion: report.kit?.version ?? "unknown",
    ids: new Set(report.results.map((r) => r.id)),
    failures,
  };
}

/**
 * Refuses a baseline written by another kit whose checks this one does not have: its failures could
 * never be matched, and every one of them would read as fixed or silently vanish.
 */
export function checkBaseline(baseline: Baseline, catalogueIds: readonly string[], kitVersion: string): void {
  const known = new Set(catalogueIds);
  const unknown = [...baseline.ids].filter((id) => !known.has(id));
  if (unknown.length === 0) return;
  const shown = unknown.slice(0, 3).join(", ") + (unknown.length > 3 ? ", …" : "");
  const from = baseline.kitVersion === kitVersion ? `this kit (${kitVersion})` : `kit ${baseline.kitVersion}`;
  throw new BaselineError(
    `baseline ${baseline.file} was written by ${from} and names ${unknown.length} check${unknown.length === 1 ? "" : "s"} this kit (${kitVersion}) does not have (${shown}): write a new one with --reporter json:${baseline.file}`,
  );
}

/**
 * The results judged against the baseline. A failure is known when its check id and key are in the
 * baseline, or when it is blocked by a known failure (report/defects.ts): it fails only because of a
 * defect the baseline already holds, even if its check is new. A known failure does not fail the run.
 */
export function applyBaseline(
  results: readonly CheckResult[],
  baseline: Baseline,
): { results: CheckResult[]; summary: BaselineSummary } {
  const inBaseline = (r: CheckResult): boolean =>
    r.failure !== undefined && baseline.failures.get(r.id)?.has(r.failure.key) === true;
  const knownIds = new Set(results.filter((r) => r.outcome === "fail" && inBaseline(r)).map((r) => r.id));
  const judged = results.map((r): CheckResult => {
    if (r.outcome === "fail") {
      const blocker = r.failure?.blockedBy;
      const known = knownIds.has(r.id) || (blocker !== undefined && knownIds.has(blocker));
      return known ? { ...r, baseline: "known", failsRun: false } : { ...r, baseline: "new" };
    }
    if (r.outcome === "pass" && baseline.failures.has(r.id)) return { ...r, baseline: "fixed" };
    return r;
  });
  return {
    results: judged,
    summary: {
      file: baseline.file,
      kitVersion: baseline.kitVersion,
      known: judged.filter((r) => r.baseline === "known").length,
      new: judged.filter((r) => r.baseline === "new").length,
      fixed: judged.filter((r) => r.baseline === "fixed").map((r) => r.id),
    },
  };
}
