import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main, type CliIo } from "./cli.js";
import {
  closedBaseUrl,
  json,
  startLocalServer,
  testManifest,
  type LocalServer,
} from "./test-support/local.js";
import { CheckFailure, type Check, type RunReport } from "./types.js";

let server: LocalServer;
let dir: string;
let manifestFile: string;
beforeAll(async () => {
  server = await startLocalServer((_req, res) => json(res, 200, { data: [] }));
  dir = await mkdtemp(join(tmpdir(), "cfk-cli-"));
  manifestFile = join(dir, "tokens.json");
  await writeFile(manifestFile, JSON.stringify(testManifest()));
});
afterAll(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

const listsContacts: Check = {
  id: "contacts.list",
  section: "§4 Endpoints",
  clause: "§4.5",
  level: "MUST",
  rule: "GET /api/v1/contacts answers 200",
  async run(ctx) {
    const ex = await ctx.http.send({
      method: "GET",
      path: "/api/v1/contacts",
      auth: ctx.tokens.get({ kind: "full" }),
    });
    if (ex.status !== 200)
      throw new CheckFailure("not 200", {
        key: `status ${ex.status}`,
        expected: "200",
        actual: String(ex.status),
        exchange: ex,
      });
  },
};

const strictOnly: Check = {
  id: "contacts.order",
  section: "§4 Endpoints",
  clause: "§4.5",
  level: "SHOULD",
  rule: "newest first",
  async run() {
    throw new CheckFailure("oldest first", {
      key: "oldest first",
      expected: "newest first",
      actual: "oldest first",
    });
  },
};

interface Captured {
  code: number;
  exitCode: number | undefined;
  stdout: string;
  stderr: string;
}

async function cli(
  args: string[],
  catalogue: readonly Check[] = [listsContacts, strictOnly],
): Promise<Captured> {
  let stdout = "";
  let stderr = "";
  let exitCode: number | undefined;
  const io: CliIo = {
    stdout: (t) => void (stdout += t),
    stderr: (t) => void (stderr += t),
    setExitCode: (c) => void (exitCode = c),
    catalogue,
  };
  // This target answers 200 to every token: the preflight has its own tests (preflight.test.ts).
  const code = await main(["node", "conformance", ...args, "--no-preflight"], io);
  return { code, exitCode, stdout, stderr };
}

/** One line on stderr, no stack trace, exit 2. */
function expectUsageError(r: Captured, pattern: RegExp): void {
  expect(r.code).toBe(2);
  expect(r.exitCode).toBe(2);
  expect(r.stderr).toMatch(pattern);
  expect(r.stderr.trimEnd().split("\n")).toHaveLength(1);
  expect(r.stderr).not.toMatch(/\n\s+at /);
  expect(r.stdout).toBe("");
}

describe("conformance CLI", () => {
  it.each([
    [
      ["--num-runs", "abc"],
      /^conformance: option '--num-runs <n>' argument 'abc' is invalid\. not an integer\./,
    ],
    [["--num-runs", "2.5"], /--num-runs/],
    [["--rate-limit", "0"], /--rate-limit <n>' argument '0' is invalid\. must be at least 1\./],
    [
      ["--profile", "loose"],
      /--profile <profile>' argument 'loose' is invalid\. Allowed choices are spec, reference\./,
    ],
    [
      ["--reporter", "tap"],
      /argument 'tap' is invalid\. unknown reporter "tap" \(known: console, junit, json, html, badge\)/,
    ],
    [["--reporter", "junit:"], /"junit:" names no file/],
    [["--reporter", "json", "--reporter", "junit"], /json and junit would both write to stdout/],
    [["--format", "markdown"], /--format applies to --list/],
    [
      ["--base-url", "localhost:3000"],
      /'--base-url <url>' argument 'localhost:3000' is invalid\. not an http:\/\/ or https:\/\/ URL\.\n/,
    ],
    [["--base-url", "not a url"], /invalid\. not a URL \(expected e\.g\. http:\/\/localhost:3000\)/],
    [["--grep", "("], /argument '\(' is invalid\. not a regular expression \(Invalid regular expression/],
    [["--frobnicate"], /^conformance: unknown option '--frobnicate'/],
    [["extra"], /too many arguments/],
  ])("exits 2 with one line for the usage error in %j", async (args, pattern) => {
    expectUsageError(await cli(args), pattern);
  });

  it("exits 2 in one line when the target cannot be reached", async () => {
    const url = await closedBaseUrl();
    expectUsageError(
      await cli(["--base-url", url, "--tokens", manifestFile]),
      new RegExp(`^conformance: cannot reach ${url}: connection refused \\(ECONNREFUSED\\)\\n$`),
    );
  });

  it("exits 2 in one line naming the manifest and the offending path", async () => {
    const bad = join(dir, "bad-tokens.json");
    const manifest = testManifest();
    await writeFile(bad, JSON.stringify({ ...manifest, tokens: [{ ...manifest.tokens[0], state: "lost" }] }));
    expectUsageError(
      await cli(["--base-url", server.baseUrl, "--tokens", bad]),
      /^conformance: The token manifest .*bad-tokens\.json does not follow the manifest format .*: tokens\[0\]\.state: invalid option/,
    );
  });

  it("lists the catalogue grouped by section and exits 0", async () => {
    const r = await cli(["--list"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /^§4 Endpoints\n {2}contacts\.list +MUST +GET \/api\/v1\/contacts answers 200 {2}\[§4\.5\]\n/,
    );
    expect(r.stdout).toContain("contacts.order  SHOULD");
    expect(r.stderr).toBe("");
  });

  it("prints the help and exits 0", async () => {
    const r = await cli(["--help"]);
    expect(r.code).toBe(0);
    for (const flag of [
      "--base-url",
      "--tokens",
      "--rate-limit",
      "--profile",
      "--strict",
      "--reporter",
      "--output",
    ]) {
      expect(r.stdout).toContain(flag);
    }
    for (const flag of ["--seed", "--num-runs", "--read-only", "--grep", "--slow", "--list"]) {
      expect(r.stdout).toContain(flag);
    }
  });

  it("exits 0 when only a SHOULD failed, and 1 with --strict", async () => {
    const base = ["--base-url", server.baseUrl, "--tokens", manifestFile, "--seed", "7"];
    const lenient = await cli(base);
    expect(lenient.code).toBe(0);
    expect(lenient.stdout).toContain("PASSED: 1 passed, 1 failed (0 failing the run)");
    expect(lenient.stdout).toMatch(/requests in [\d.]+ s; seed 7\n$/);
    const strict = await cli([...base, "--strict"]);
    expect(strict.code).toBe(1);
    expect(strict.exitCode).toBe(1);
  });

  it("writes the chosen report to --output and a summary to stdout", async () => {
    const out = join(dir, "report.json");
    const r = await cli([
      "--base-url",
      server.baseUrl,
      "--tokens",
      manifestFile,
      "--reporter",
      "json",
      "--output",
      out,
      "--grep",
      "contacts\\.list",
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /^PASSED: 1 passed, 0 failed, 0 skipped, 0 observed; \d+ requests in .*\njson report written to /,
    );
    const report = JSON.parse(await readFile(out, "utf8")) as RunReport;
    expect(report.results.map((x) => x.id)).toEqual(["contacts.list"]);
    expect(report.target).toBe(server.baseUrl);
    expect(report.options.rateWindowMs).toBe(60_000);
  });

  it("writes one self-contained HTML page with --reporter html, the failure's replay naming the manifest", async () => {
    const r = await cli([
      "--base-url",
      server.baseUrl,
      "--tokens",
      manifestFile,
      "--seed",
      "7",
      "--reporter",
      "html",
    ]);
    expect(r.stdout.startsWith("<!doctype html>")).toBe(true);
    expect(r.stdout).not.toMatch(/<script|<link|src=/i);
    expect(r.stdout).toContain(`--tokens ${manifestFile}`);
    expect(r.stdout).toContain("contacts.order");
  });

  it("keeps --tokens in the JSON report, so that compare and replays name it", async () => {
    const out = join(dir, "tokens-kept.json");
    await cli([
      "--base-url",
      server.baseUrl,
      "--tokens",
      manifestFile,
      "--reporter",
      "json",
      "--output",
      out,
    ]);
    const report = JSON.parse(await readFile(out, "utf8")) as RunReport;
    expect(report.options.tokens).toBe(manifestFile);
  });

  it("prints JUnit XML to stdout without --output", async () => {
    const r = await cli(["--base-url", server.baseUrl, "--tokens", manifestFile, "--reporter", "junit"]);
    expect(r.stdout.startsWith('<?xml version="1.0" encoding="UTF-8"?>')).toBe(true);
  });

  it("writes several reports from one run: console to stdout, JUnit, HTML, JSON and a badge to files", async () => {
    const at = (name: string) => join(dir, "multi", name);
    const r = await cli([
      "--base-url",
      server.baseUrl,
      "--tokens",
      manifestFile,
      "--seed",
      "7",
      "--strict",
      "--reporter",
      "console",
      "--reporter",
      `junit:${at("conformance.xml")}`,
      "--reporter",
      `html:${at("conformance.html")}`,
      "--reporter",
      `json:${at("conformance.json")}`,
      "--reporter",
      `badge:${at("conformance.svg")}`,
    ]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^Conformance of http:\/\/127\.0\.0\.1:\d+ to the accounting API spec\n/);
    expect(r.stdout).toContain("FAILED: 1 distinct failure; 1 passed, 1 failed (1 failing the run)");
    expect(r.stdout).toContain(`junit report written to ${at("conformance.xml")}\n`);
    expect(await readFile(at("conformance.xml"), "utf8")).toContain(
      '<failure message="oldest first" type="SHOULD">',
    );
    expect(await readFile(at("conformance.html"), "utf8")).toMatch(/^<!doctype html>/);
    const report = JSON.parse(await readFile(at("conformance.json"), "utf8")) as RunReport;
    expect(report.options.seed).toBe(7);
    expect(report.kit).toMatchObject({
      name: "accounting-api-reference",
      spec: { file: "accounting-api.md" },
    });
    expect(report.kit?.spec.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(Date.parse(report.startedAt)).not.toBeNaN();
    const svg = await readFile(at("conformance.svg"), "utf8");
    expect(svg).toMatch(/^<svg [^>]*role="img" aria-label="conformance: 1\/1 MUST">/);
    expect(svg).toContain("#3C1"); // green: the one MUST check passed
    expect(svg).toMatch(
      /<desc>http:\/\/127\.0\.0\.1:\d+: kit accounting-api-reference [\d.]+, spec accounting-api\.md sha256 [0-9a-f]{12}…, started .*, seed 7, profile spec<\/desc>/,
    );
  });

  it("keeps --reporter X --output F: the report to F, a summary on stdout", async () => {
    const out = join(dir, "legacy.xml");
    const r = await cli([
      "--base-url",
      server.baseUrl,
      "--tokens",
      manifestFile,
      "--reporter",
      "junit",
      "--output",
      out,
    ]);
    expect(r.stdout).toMatch(
      /^PASSED: 1 passed, 1 failed \(0 failing the run\).*\njunit report written to .*legacy\.xml\n$/,
    );
    expect(await readFile(out, "utf8")).toMatch(/^<\?xml/);
  });

  it("keeps a document on stdout whole: the notes of the files written go to stderr", async () => {
    const out = join(dir, "beside.svg");
    const r = await cli([
      "--base-url",
      server.baseUrl,
      "--tokens",
      manifestFile,
      "--reporter",
      "json",
      "--reporter",
      `badge:${out}`,
    ]);
    expect((JSON.parse(r.stdout) as RunReport).results).toHaveLength(2);
    expect(r.stderr).toBe(`badge report written to ${out}\n`);
  });

  it("paints the badge red when a MUST check fails", async () => {
    const failing: Check = {
      ...listsContacts,
      id: "contacts.fails",
      run: () => Promise.reject(new Error("boom")),
    };
    const out = join(dir, "red.svg");
    const r = await cli(
      ["--base-url", server.baseUrl, "--tokens", manifestFile, "--reporter", `badge:${out}`],
      [listsContacts, failing],
    );
    expect(r.code).toBe(1);
    const svg = await readFile(out, "utf8");
    expect(svg).toContain('aria-label="conformance: 1/2 MUST"');
    expect(svg).toContain("#E43"); // red
  });

  it.each([
    [
      "a missing file",
      () => join(dir, "no-such-baseline.json"),
      /^conformance: baseline: cannot read .*no-such-baseline\.json: no such file\n$/,
    ],
    [
      "a file that is no report",
      async () => {
        const f = join(dir, "not-a-report.json");
        await writeFile(f, "[1, 2]");
        return f;
      },
      /^conformance: baseline: .*not-a-report\.json is not a report written with --reporter json/,
    ],
    [
      "a report from another kit version with other check ids",
      async () => {
        const f = join(dir, "old-kit.json");
        const old = {
          kit: {
            name: "accounting-api-reference",
            version: "0.0.1",
            spec: { file: "accounting-api.md", sha256: "0" },
          },
        };
        const base = JSON.parse(await readFile(join(dir, "multi", "conformance.json"), "utf8")) as RunReport;
        base.results = base.results.map((x) => ({ ...x, id: `old.${x.id}` }));
        await writeFile(f, JSON.stringify({ ...base, ...old }));
        return f;
      },
      /^conformance: baseline .*old-kit\.json was written by kit 0\.0\.1 and names 2 checks this kit \([\d.]+\) does not have \(old\.contacts\.list, old\.contacts\.order\): write a new one with --reporter json:.*old-kit\.json\n$/,
    ],
  ])("exits 2 in one line and runs nothing for a baseline that is %s", async (_what, file, pattern) => {
    const before = server.seen.length;
    expectUsageError(
      await cli(["--base-url", server.baseUrl, "--tokens", manifestFile, "--baseline", await file()]),
      pattern,
    );
    expect(server.seen.length).toBe(before);
  });

  it("judges a run against a baseline: a known failure does not fail it, even with --strict", async () => {
    const base = ["--base-url", server.baseUrl, "--tokens", manifestFile, "--strict"];
    const file = join(dir, "baseline.json");
    expect((await cli([...base, "--reporter", `json:${file}`])).code).toBe(1);
    const r = await cli([...base, "--baseline", file, "--seed", "9"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(
      "Known failures, in the baseline (1; they do not fail the run)\n  contacts.order  [SHOULD]  oldest first",
    );
    expect(r.stdout).toMatch(
      /PASSED: 1 passed, 1 failed \(0 failing the run\), 0 skipped, 0 observed; baseline: 1 known, 0 new, 0 fixed;/,
    );
  });

  // The bin as a user runs it: a process whose exit code and stderr are all there is.
  const bin = (args: string[]) =>
    promisify(execFile)("npx", ["tsx", "conformance/bin.ts", ...args], { cwd: process.cwd() }).then(
      ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
      (e: { code: number; stdout: string; stderr: string }) => ({
        code: e.code,
        stdout: e.stdout,
        stderr: e.stderr,
      }),
    );
  const ownLines = (stderr: string) =>
    stderr.split("\n").filter((l) => l !== "" && !l.startsWith("npm warn"));

  it("as a process: exits 2 with one line when the target cannot be reached", async () => {
    const r = await bin(["--base-url", await closedBaseUrl(), "--tokens", manifestFile]);
    expect(r.code).toBe(2);
    expect(ownLines(r.stderr)).toEqual([
      expect.stringMatching(/^conformance: cannot reach http:\/\/127\.0\.0\.1:\d+: /),
    ]);
  });

  it("as a process: exits 2 on a usage error and 0 for --help", async () => {
    const usage = await bin(["--num-runs", "x"]);
    expect(usage.code).toBe(2);
    expect(ownLines(usage.stderr)).toHaveLength(1);
    const help = await bin(["--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("Usage: conformance [options]");
  });
});
