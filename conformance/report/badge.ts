import { badgen } from "badgen";
import type { RunReport } from "../types.js";
import { provenance } from "./console.js";
import { escapeHtml } from "./html.js";

/**
 * `--reporter badge:FILE.svg`: a small SVG for a README, `conformance | 64/64 MUST`, the MUST checks
 * that passed over those that ran (skipped ones left out). Red when a MUST check failed, whatever a
 * baseline says: a badge publishes the result, not the team's plan; green otherwise. The SVG's
 * description carries what the result was checked with: the kit's version, the spec's hash, the
 * target, the seed and the date. badgen draws it (widths measured for Verdana, no dependency).
 */
export function renderBadge(report: RunReport): string {
  const must = report.results.filter(
    (r) => r.level === "MUST" && (r.outcome === "pass" || r.outcome === "fail"),
  );
  const passed = must.filter((r) => r.outcome === "pass").length;
  const svg = badgen({
    label: "conformance",
    status: `${passed}/${must.length} MUST`,
    color: passed === must.length ? "green" : "red",
  });
  const desc = `${report.target}: ${provenance(report)}, seed ${report.options.seed}, profile ${report.options.profile}`;
  return `${svg.replace("</title>", `</title>\n  <desc>${escapeHtml(desc)}</desc>`).trimEnd()}\n`;
}
