import { mkdir, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { Command, CommanderError, InvalidArgumentError, Option } from "commander";
import {
  baseUrlProblem,
  checkBaseUrl,
  loadDefaultCatalogue,
  runConformance,
  TargetUnreachableError,
} from "./index.js";
import { kitIdentity } from "./kit.js";
import { kitSpec } from "./spec/kit-spec.js";
import { ManifestError, loadManifest } from "./manifest.js";
import { ManifestMismatchError } from "./engine/preflight.js";
import { BaselineError, checkBaseline, readBaseline } from "./report/baseline.js";
import { renderClauseDocument } from "./report/clause-document.js";
import { renderStanceDocument } from "./report/stance-document.js";
import { oneLine, renderCatalogue, renderSummaryLine } from "./report/console.js";
import { compareReports, renderComparison } from "./report/compare.js";
import { renderHtmlReport } from "./report/html.js";
import { RunProgress } from "./report/progress.js";
import { ReportFileError, readReport } from "./report/read.js";
import {
  parseReporter,
  REPORTERS,
  renderReport,
  resolveReporters,
  type ReporterTarget,
} from "./report/reporters.js";
import { InvalidOptionError, selectChecks } from "./engine/runner.js";
import { systemKitClock, type Check, type KitClock, type Profile } from "./types.js";
import { loadSpecFile } from "../spec/file.js";
import type { Spec } from "../spec/schema.js";
import { SpecVariantError, defaultSpec } from "../spec/variant.js";
import { renderSpecDiff, specDiff } from "./report/spec-diff.js";

/** Where the CLI writes; tests give their own to read what a user would see. */
export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  setExitCode(code: number): void;
  /** Instead of the shipped catalogue (tests of the CLI itself). */
  catalogue?: readonly Check[];
  /** stderr is a terminal: the progress is one live line; otherwise plain lines (report/progress.ts). */
  terminal?: boolean;
  /** The terminal's width. */
  columns?: number | undefined;
  /** The run's clock (tests: a virtual one); default the system's. */
  clock?: KitClock;
}

export function processIo(): CliIo {
  return {
    stdout: (text) => void process.stdout.write(text),
    stderr: (text) => void process.stderr.write(text),
    setExitCode: (code) => {
      process.exitCode = code;
    },
    terminal: process.stderr.isTTY,
    columns: process.stderr.columns,
  };
}

interface CliOptions {
  baseUrl?: string;
  tokens?: string;
  rateLimit?: number;
  profile: Profile;
  strict?: boolean;
  reporter: ReporterTarget[];
  output?: string;
  baseline?: string;
  preflight: boolean;
  format?: "text" | "markdown" | "stance";
  seed?: number;
  numRuns: number;
  readOnly?: boolean;
  grep?: string;
  slow?: boolean;
  list?: boolean;
  spec?: string;
  printSpec?: boolean;
}

/**
 * `conformance [options]`. Exit 0 when nothing failing the run failed, 1 when something did, 2 for a
 * usage error, a bad manifest or a target that cannot be reached, said in one line.
 */
export async function main(argv: readonly string[], io: CliIo = processIo()): Promise<number> {
  const code = await run(argv, io);
  io.setExitCode(code);
  return code;
}

async function run(argv: readonly string[], io: CliIo): Promise<number> {
  if (argv[2] === "compare") return compare(argv.slice(3), io);
  if (argv[2] === "spec-diff") return specDiffCommand(argv.slice(3), io);
  const program = buildProgram(io);
  try {
    program.parse([...argv], { from: "node" });
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 2;
    throw error;
  }
  const opts = program.opts<CliOptions>();
  let spec: Spec;
  try {
    spec = opts.spec === undefined ? defaultSpec() : await loadSpecFile(opts.spec);
  } catch (error) {
    if (!(error instanceof SpecVariantError)) throw error;
    // Every bad key path, one a line: the author fixes the file in one pass.
    io.stderr(`conformance: ${error.message}\n`);
    return 2;
  }
  if (opts.printSpec === true) {
    io.stdout(`${JSON.stringify(spec, null, 2)}\n`);
    return 0;
  }
  try {
    if (opts.list === true) return await list(opts, io, spec);
    if (opts.format !== undefined) throw new InvalidOptionError("--format applies to --list");
    const targets = resolveReporters(opts.reporter, opts.output);
    const kit = kitIdentity();
    let baseline;
    if (opts.baseline !== undefined) {
      baseline = await readBaseline(opts.baseline);
      const catalogue = io.catalogue ?? (await loadDefaultCatalogue());
      checkBaseline(
        baseline,
        catalogue.map((c) => c.id),
        kit.version,
      );
    }
    const manifest = opts.tokens === undefined ? undefined : await loadManifest(opts.tokens, kitSpec(spec));
    const clock = io.clock ?? systemKitClock;
    const progress = new RunProgress({
      write: (text) => io.stderr(text),
      terminal: io.terminal === true,
      columns: io.columns,
      clock,
    });
    let report;
    try {
      report = await runConformance({
        baseUrl: opts.baseUrl,
        ...(opts.spec === undefined ? {} : { spec }),
        ...(manifest === undefined || opts.tokens === undefined ? {} : { manifest, tokensFile: opts.tokens }),
        seed: opts.seed,
        grep: opts.grep,
        profile: opts.profile,
        strict: opts.strict === true,
        readOnly: opts.readOnly === true,
        numRuns: opts.numRuns,
        rateLimit: opts.rateLimit,
        slow: opts.slow === true,
        catalogue: io.catalogue,
        clock,
        preflight: opts.preflight,
        baseline,
        progress,
      });
    } finally {
      progress.finish();
    }
    // Loaded after the run, which loads it too: an unreachable target is said before the catalogue matters.
    const catalogue = io.catalogue ?? (await loadDefaultCatalogue());
    let stdout: { name: string; text: string } | undefined;
    const written: string[] = [];
    for (const target of targets) {
      const text = renderReport(target.name, report, catalogue);
      if (target.file === undefined) stdout = { name: target.name, text };
      else {
        await mkdir(dirname(target.file), { recursive: true });
        await writeFile(target.file, text, "utf8");
        written.push(`${target.name} report written to ${target.file}\n`);
      }
    }
    if (stdout === undefined) io.stdout(`${renderSummaryLine(report)}\n${written.join("")}`);
    else {
      io.stdout(stdout.text);
      // A JSON, JUnit, HTML or SVG document on stdout must stay one: the file notes go to stderr.
      (stdout.name === "console" ? io.stdout : io.stderr)(written.join(""));
    }
    return report.results.some((r) => r.failsRun) ? 1 : 0;
  } catch (error) {
    if (error instanceof ManifestMismatchError) {
      // One line per wrong token; no check ran.
      io.stderr(
        error
          .lines()
          .map((line) => `conformance: ${oneLine(line)}\n`)
          .join(""),
      );
      return 2;
    }
    const expected =
      error instanceof TargetUnreachableError ||
      error instanceof ManifestError ||
      error instanceof InvalidOptionError ||
      error instanceof BaselineError;
    // Anything else is the kit's own fault; still one line, but say so.
    const message = error instanceof Error ? error.message : String(error);
    io.stderr(`conformance: ${expected ? "" : "internal error: "}${oneLine(message)}\n`);
    return 2;
  }
}

/**
 * --list: the catalogue as text, the clause document (--format markdown) or the kit's stance on the
 * open points (--format stance), to stdout or --output.
 */
async function list(opts: CliOptions, io: CliIo, spec: Spec): Promise<number> {
  const catalogue = io.catalogue ?? (await loadDefaultCatalogue());
  const listed =
    opts.grep === undefined
      ? catalogue
      : selectChecks(catalogue, { profile: "reference", readOnly: false, grep: opts.grep, slow: true }).map(
          (s) => s.check,
        );
  const text =
    opts.format === "markdown"
      ? renderClauseDocument(listed, kitIdentity(spec), spec)
      : opts.format === "stance"
        ? renderStanceDocument(listed, kitIdentity())
        : renderCatalogue(listed);
  if (opts.output === undefined) io.stdout(text);
  else {
    await mkdir(dirname(opts.output), { recursive: true });
    await writeFile(opts.output, text, "utf8");
  }
  return 0;
}

/**
 * `conformance spec-diff A.json B.json`: the clauses and checks whose expectations differ between two
 * spec files (each a variant merged over the default, as --spec reads it); with one file, between the
 * spec as written and it. Exit 0 however much they
 * differ; 2 for a usage error or a file that is no valid spec.
 */
async function specDiffCommand(args: readonly string[], io: CliIo): Promise<number> {
  const command = new Command("conformance spec-diff")
    .description(
      "List the clauses and checks whose expectations differ between two spec files (variants merged over the default), or between the spec as written and one.",
    )
    .argument("<a>", "a spec file or variant")
    .argument("[b]", "another (default: compare the spec as written with <a>)")
    .helpOption("-h, --help", "show this help")
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.stdout(text),
      writeErr: (text) => io.stderr(text),
      outputError: (text, write) =>
        write(`conformance spec-diff: ${oneLine(text).replace(/^error: /, "")}\n`),
    });
  try {
    command.parse([...args], { from: "user" });
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 2;
    throw error;
  }
  const [first = "", second] = command.args;
  try {
    const [a, b] =
      second === undefined
        ? [defaultSpec(), await loadSpecFile(first)]
        : [await loadSpecFile(first), await loadSpecFile(second)];
    const names: [string, string] = second === undefined ? ["the spec as written", first] : [first, second];
    const catalogue = io.catalogue ?? (await loadDefaultCatalogue());
    io.stdout(renderSpecDiff(specDiff(a, b, catalogue), names));
    return 0;
  } catch (error) {
    if (!(error instanceof SpecVariantError)) throw error;
    io.stderr(`conformance spec-diff: ${error.message}\n`);
    return 2;
  }
}

interface CompareOptions {
  reporter: "console" | "html";
  output?: string;
}

/**
 * `conformance compare A.json B.json …`: reports written with --reporter json, side by side. Exit 0,
 * however much they differ (a comparison is no verdict); 2 for a usage error or a file that is no report.
 */
async function compare(args: readonly string[], io: CliIo): Promise<number> {
  const command = new Command("conformance compare")
    .description(
      "Print, side by side, each check's outcome and each open point's observation in reports written with --reporter json.",
    )
    .argument("<reports...>", "report files (--reporter json)")
    .addOption(
      new Option("--reporter <name>", "output format").choices(["console", "html"]).default("console"),
    )
    .addOption(new Option("--output <file>", "write to a file instead of stdout"))
    .helpOption("-h, --help", "show this help")
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.stdout(text),
      writeErr: (text) => io.stderr(text),
      outputError: (text, write) => write(`conformance compare: ${oneLine(text).replace(/^error: /, "")}\n`),
    });
  try {
    command.parse([...args], { from: "user" });
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 2;
    throw error;
  }
  const files = command.args;
  const opts = command.opts<CompareOptions>();
  try {
    const inputs = [];
    for (const file of files) inputs.push({ file, report: await readReport(file) });
    const rendered =
      opts.reporter === "html" ? renderHtmlReport(inputs) : renderComparison(compareReports(inputs));
    const differing = compareReports(inputs).rows.filter((r) => r.differs).length;
    if (opts.output === undefined) io.stdout(rendered);
    else {
      await writeFile(opts.output, rendered, "utf8");
      io.stdout(`${differing} checks differ; ${opts.reporter} comparison written to ${opts.output}\n`);
    }
    return 0;
  } catch (error) {
    if (error instanceof ReportFileError) {
      io.stderr(`conformance compare: ${oneLine(error.message)}\n`);
      return 2;
    }
    throw error;
  }
}

function buildProgram(io: CliIo): Command {
  return new Command("conformance")
    .description(
      "Check an implementation of the accounting REST API against its spec, clause by clause.\n" +
        "Without --base-url, the reference server is started in process and checked.\n" +
        "`conformance compare A.json B.json …` puts reports written with --reporter json side by side.\n" +
        "`conformance spec-diff A.json B.json` lists the clauses and checks two spec files set apart.",
    )
    .addOption(new Option("--base-url <url>", "the implementation to check").argParser(parseUrl))
    .addOption(
      new Option(
        "--tokens <file>",
        'token manifest (see docs/implementers.md, "Token manifest"); default: the reference fixtures\'',
      ),
    )
    .addOption(
      new Option(
        "--rate-limit <n>",
        "requests per minute the target enforces; the kit stays under it (default: the manifest's rateLimit, else 100)",
      ).argParser(parsePositive),
    )
    .addOption(
      new Option("--profile <profile>", "which checks run").choices(["spec", "reference"]).default("spec"),
    )
    .addOption(new Option("--strict", "SHOULD failures also fail the run"))
    .addOption(
      new Option(
        "--reporter <name[:file]>",
        `a report, to stdout or to FILE; repeatable (${REPORTERS.join(", ")})`,
      )
        .argParser(collectReporter)
        .default([], "console to stdout"),
    )
    .addOption(
      new Option(
        "--output <file>",
        "write the one reporter named without a file to FILE (a summary still goes to stdout)",
      ),
    )
    .addOption(
      new Option(
        "--baseline <file>",
        "a JSON report of an earlier run: its failures are known and do not fail this one",
      ),
    )
    .addOption(
      new Option("--seed <n>", "seed of the property checks (default: random, reported)").argParser(
        parseInteger,
      ),
    )
    .addOption(new Option("--num-runs <n>", "cases per property check").argParser(parsePositive).default(25))
    .addOption(new Option("--read-only", "run no check that creates records"))
    .addOption(
      new Option(
        "--grep <pattern>",
        "run the checks whose id, section or rule match (regex, any case)",
      ).argParser(parseGrep),
    )
    .addOption(new Option("--slow", "also run the slow checks (waiting out the rate limit)"))
    .addOption(
      new Option(
        "--no-preflight",
        "run the checks even if the manifest's tokens are not what the target takes them for",
      ),
    )
    .addOption(
      new Option(
        "--spec <file>",
        "the spec the target is held to: a spec file, or a variant merged over the spec as written (default: the spec as written)",
      ),
    )
    .addOption(new Option("--print-spec", "print the spec (merged with --spec's variant) as JSON and exit"))
    .addOption(new Option("--list", "print the checks, grouped by section, and exit"))
    .addOption(
      new Option(
        "--format <format>",
        "with --list: text; markdown for the clause document (every clause, its checks, what no check covers); stance for the kit's stance on each open point",
      ).choices(["text", "markdown", "stance"]),
    )
    .helpOption("-h, --help", "show this help")
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.stdout(text),
      writeErr: (text) => io.stderr(text),
      outputError: (text, write) => write(`conformance: ${oneLine(text).replace(/^error: /, "")}\n`),
    });
}

function collectReporter(value: string, previous: ReporterTarget[]): ReporterTarget[] {
  try {
    return [...previous, parseReporter(value)];
  } catch (error) {
    throw new InvalidArgumentError(`${error instanceof Error ? error.message : String(error)}.`);
  }
}

function parseInteger(value: string): number {
  const n = Number(value);
  if (!/^-?\d+$/.test(value.trim()) || !Number.isSafeInteger(n))
    throw new InvalidArgumentError("not an integer.");
  return n;
}

function parsePositive(value: string): number {
  const n = parseInteger(value);
  if (n < 1) throw new InvalidArgumentError("must be at least 1.");
  return n;
}

function parseUrl(value: string): string {
  const problem = baseUrlProblem(value);
  if (problem !== undefined) throw new InvalidArgumentError(`${problem}.`);
  return checkBaseUrl(value);
}

function parseGrep(value: string): string {
  try {
    new RegExp(value, "i");
  } catch (error) {
    throw new InvalidArgumentError(
      `not a regular expression (${error instanceof Error ? error.message : String(error)}).`,
    );
  }
  return value;
}
