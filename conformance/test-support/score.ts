import { pathToFileURL } from "node:url";
import {
  BENIGN,
  VARIANTS,
  VIOLATIONS,
  runVariant,
  verdictOf,
  verdictProblem,
  type Variant,
  type Verdict,
} from "./variants/index.js";

/**
 * The kit's mutation score: every variant of variants/ run through the whole kit (spec profile;
 * --strict for the variants that break a SHOULD), with a table of what each run found.
 *
 *   npx tsx conformance/test-support/score.ts [--concurrency 2] [variant-id ...]
 *
 * The score counts what the kit does today: a known gap (a violation it misses, a legal variant it
 * fails) counts against it. Exits 1 when a verdict is not the expected one (a known gap included).
 */

interface Row {
  variant: Variant;
  verdict: Verdict;
  /** Whether the verdict is the one the tests expect (for a known gap, the wrong one it is known for). */
  expected: boolean;
  failing: string[];
  requests: number;
  seconds: number;
}

async function scoreOne(variant: Variant): Promise<Row> {
  const run = await runVariant(variant);
  return {
    variant,
    verdict: verdictOf(variant, run),
    expected: verdictProblem(variant, run) === undefined,
    failing: run.failing.map((r) => r.id),
    requests: run.report.requests,
    seconds: run.seconds,
  };
}

/** Runs `count` variants at a time: each has its own reference and port, and none shares a rate limit. */
async function scoreAll(variants: readonly Variant[], concurrency: number): Promise<Row[]> {
  const rows: Row[] = new Array<Row>(variants.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let i = next++; i < variants.length; i = next++) {
      const variant = variants[i];
      if (variant === undefined) continue;
      rows[i] = await scoreOne(variant);
      process.stderr.write(".");
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, concurrency) }, worker));
  process.stderr.write("\n");
  return rows;
}

const pad = (s: string, n: number): string => (s.length >= n ? s : s + " ".repeat(n - s.length));

function table(rows: readonly Row[]): string {
  const head = ["variant", "kind", "area", "verdict", "failing checks", "requests", "seconds"];
  const body = rows.map((r) => [
    r.variant.id,
    r.variant.kind +
      (r.variant.strict === true ? " (strict)" : "") +
      (r.variant.slow === true ? " (slow)" : ""),
    r.variant.area,
    r.verdict + (r.variant.knownGap === undefined ? "" : " (known gap)") + (r.expected ? "" : " UNEXPECTED"),
    r.failing.length === 0
      ? "-"
      : r.failing.slice(0, 3).join(", ") + (r.failing.length > 3 ? ` (+${r.failing.length - 3})` : ""),
    String(r.requests),
    r.seconds.toFixed(1),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => (b[i] ?? "").length)));
  const line = (cells: readonly string[]): string => cells.map((c, i) => pad(c, widths[i] ?? 0)).join("  ");
  return [line(head), line(widths.map((w) => "-".repeat(w))), ...body.map(line)].join("\n");
}

const percent = (n: number, d: number): string => (d === 0 ? "-" : `${((100 * n) / d).toFixed(1)} %`);

export async function main(argv: readonly string[]): Promise<number> {
  const args = [...argv];
  let concurrency = 2;
  const at = args.indexOf("--concurrency");
  if (at !== -1) {
    concurrency = Number(args[at + 1] ?? "2");
    args.splice(at, 2);
  }
  const chosen = args.length === 0 ? VARIANTS : VARIANTS.filter((v) => args.includes(v.id));
  const started = performance.now();
  const rows = await scoreAll(chosen, concurrency);
  const violations = rows.filter((r) => r.variant.kind === "violation");
  const caught = violations.filter((r) => r.verdict === "caught");
  const strict = violations.filter((r) => r.variant.strict === true);
  const missedGaps = violations.filter((r) => r.variant.knownGap !== undefined && r.verdict === "missed");
  const benign = rows.filter((r) => r.variant.kind === "benign");
  const passed = benign.filter((r) => r.verdict === "passed");
  const alarmGaps = benign.filter((r) => r.variant.knownGap !== undefined && r.verdict === "false alarm");
  const unexpected = rows.filter((r) => !r.expected);
  console.log(table(rows));
  console.log("");
  console.log(
    `Mutation score: ${caught.length}/${violations.length} violations caught naming an expected check (${percent(caught.length, violations.length)})` +
      `; ${missedGaps.length} missed are known kit gaps; ${strict.filter((r) => r.verdict === "caught").length}/${strict.length} SHOULD violations caught with --strict.`,
  );
  console.log(
    `Benign variants passed: ${passed.length}/${benign.length} (${percent(passed.length, benign.length)}); ${alarmGaps.length} failed are known kit gaps.`,
  );
  const areas = [...new Set(rows.map((r) => r.variant.area))];
  console.log(
    `Areas: ${areas.map((a) => `${a} ${rows.filter((r) => r.variant.area === a && r.variant.kind === "violation").length}+${rows.filter((r) => r.variant.area === a && r.variant.kind === "benign").length}`).join(", ")} (violations+benign).`,
  );
  console.log(
    `${rows.length} runs (${VIOLATIONS.length} violations, ${BENIGN.length} benign in the catalogue) in ${((performance.now() - started) / 1000).toFixed(1)} s, ${concurrency} at a time.`,
  );
  for (const r of unexpected) console.log(`UNEXPECTED ${r.variant.id}: ${r.verdict}`);
  return unexpected.length === 0 ? 0 : 1;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  process.exitCode = await main(process.argv.slice(2));
}
