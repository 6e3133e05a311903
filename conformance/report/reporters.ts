import { InvalidOptionError } from "../engine/runner.js";
import type { Check, RunReport } from "../types.js";
import { renderBadge } from "./badge.js";
import { renderConsoleReport } from "./console.js";
import { renderHtmlReport } from "./html.js";
import { renderJsonReport } from "./json.js";
import { renderJunitReport } from "./junit.js";

/**
 * The reporters of one run: `--reporter NAME` (to stdout) or `NAME:FILE`, repeatable, so that a CI job
 * gets the console, a JUnit file, the HTML page and a JSON baseline from the same run. `--output FILE`
 * (the one reporter form of earlier versions) gives its file to the one reporter named without one.
 */

export const REPORTERS = ["console", "junit", "json", "html", "badge"] as const;
export type ReporterName = (typeof REPORTERS)[number];

export interface ReporterTarget {
  name: ReporterName;
  /** Absent: stdout. */
  file?: string | undefined;
}

const isReporter = (name: string): name is ReporterName => (REPORTERS as readonly string[]).includes(name);

/** `junit:conformance.xml` → junit to that file; the name is cut at the first colon (C:\ paths keep theirs). */
export function parseReporter(value: string): ReporterTarget {
  const at = value.indexOf(":");
  const name = at === -1 ? value : value.slice(0, at);
  const file = at === -1 ? undefined : value.slice(at + 1);
  if (!isReporter(name)) throw new Error(`unknown reporter "${name}" (known: ${REPORTERS.join(", ")})`);
  if (file === "") throw new Error(`"${value}" names no file (write ${name}:FILE, or ${name} for stdout)`);
  return { name, file };
}

/**
 * The reporters to write: console to stdout when none is named; `--output` given to the one named
 * without a file. Refuses two reporters on stdout or on one file, and an `--output` with no reporter
 * to take it.
 */
export function resolveReporters(named: readonly ReporterTarget[], output?: string): ReporterTarget[] {
  const targets = named.length === 0 ? [{ name: "console" as const }] : [...named];
  if (output !== undefined) {
    const bare = targets.filter((t) => t.file === undefined);
    if (bare.length !== 1) {
      throw new InvalidOptionError(
        bare.length === 0
          ? `--output ${output} has no reporter to write: every --reporter names its own file`
          : `--output ${output} fits one reporter, but ${bare.map((t) => t.name).join(", ")} have no file of their own`,
      );
    }
    const index = targets.indexOf(bare[0] as ReporterTarget);
    targets[index] = { name: targets[index]?.name ?? "console", file: output };
  }
  const toStdout = targets.filter((t) => t.file === undefined);
  if (toStdout.length > 1) {
    throw new InvalidOptionError(
      `${toStdout.map((t) => t.name).join(" and ")} would both write to stdout: give all but one a file (NAME:FILE)`,
    );
  }
  const files = targets.flatMap((t) => (t.file === undefined ? [] : [t.file]));
  const twice = files.find((f, i) => files.indexOf(f) !== i);
  if (twice !== undefined) throw new InvalidOptionError(`two reporters would write ${twice}`);
  return targets;
}

export function renderReport(name: ReporterName, report: RunReport, catalogue: readonly Check[]): string {
  switch (name) {
    case "console":
      return renderConsoleReport(report, { catalogue });
    case "junit":
      return renderJunitReport(report);
    case "json":
      return renderJsonReport(report);
    case "html":
      return renderHtmlReport([{ file: report.target, report }]);
    case "badge":
      return renderBadge(report);
  }
}
