import type { RunReport } from "../types.js";

/** The run report as is: the machine-readable record of a run. */
export function renderJsonReport(report: RunReport): string {
  return `${JSON.stringify(report, null, 2)}\n`;
}
