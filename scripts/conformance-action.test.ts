import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { createServer } from "../src/edge/server.js";
import { createReference } from "../src/entry/reference.js";
import { parseManifest } from "../conformance/manifest.js";
import type { RunReport } from "../conformance/types.js";
import { example } from "../src/test-support/readme.js";

/**
 * The GitHub Action (action.yml) and the GitLab CI snippet (docs/ci/gitlab-ci.yml) as CI runs them:
 * the action's script with the inputs an action passes, the snippet's conformance command as written,
 * each against the reference served on loopback, from a workspace of their own. The kit runs from its
 * sources (tsx) rather than dist/, which the packed-kit test covers. A --grep keeps each run to a few
 * checks: what is tested is the wiring, not the catalogue.
 */

const root = fileURLToPath(new URL("..", import.meta.url));
const script = join(root, "scripts", "conformance-action.sh");
const tsx = pathToFileURL(join(root, "node_modules", "tsx", "dist", "loader.mjs")).href;
const FEW_CHECKS = "--grep ^(auth\\.missing-token|envelope\\.list-data-array|run\\.error-envelope)$ --seed 5";

interface ActionInput {
  description: string;
  required?: boolean;
  default?: string;
}
interface Action {
  inputs: Record<string, ActionInput>;
  outputs: Record<string, { value: string }>;
  runs: {
    using: string;
    steps: Array<{ id?: string; run: string; shell: string; env?: Record<string, string> }>;
  };
}

let server: Server;
let baseUrl: string;
let workspace: string;
let action: Action;

beforeAll(async () => {
  const reference = await createReference({ log: () => {} });
  server = createServer(reference.app);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  workspace = await mkdtemp(join(tmpdir(), "cfk-action-"));
  await writeFile(join(workspace, "tokens.json"), JSON.stringify(reference.manifest));
  action = parse(await readFile(join(root, "action.yml"), "utf8")) as Action;
});
afterAll(async () => {
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
  await rm(workspace, { recursive: true, force: true });
});

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[], env: Record<string, string>): Promise<Ran> {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("INPUT_")));
  return promisify(execFile)(command, args, {
    cwd: workspace,
    env: { ...clean, ...env, NODE_OPTIONS: `--import ${tsx}` },
    maxBuffer: 16 * 1024 * 1024,
  }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (e: { code?: number; stdout?: string; stderr?: string }) => ({
      code: typeof e.code === "number" ? e.code : -1,
      stdout: e.stdout ?? "",
      stderr: e.stderr ?? "",
    }),
  );
}

/** The environment the action's run step gets: each input's value (given, else its default) under its env name. */
function actionEnv(given: Record<string, string>): Record<string, string> {
  const step = action.runs.steps.find((s) => s.id === "run");
  const env: Record<string, string> = {};
  for (const [name, template] of Object.entries(step?.env ?? {})) {
    const input = /^\$\{\{ inputs\.([a-z-]+) \}\}$/.exec(template)?.[1] ?? "";
    env[name] = given[input] ?? action.inputs[input]?.default ?? "";
  }
  return env;
}

/** Runs the action's `run` step as GitHub would: the script, the inputs' env, GITHUB_OUTPUT to read back. */
async function runAction(given: Record<string, string>): Promise<Ran & { outputs: string }> {
  const outputs = join(workspace, `github-output-${Math.random().toString(36).slice(2)}`);
  await writeFile(outputs, "");
  const ran = await run("bash", [script, "run"], {
    ...actionEnv(given),
    GITHUB_ACTION_PATH: root,
    GITHUB_OUTPUT: outputs,
    CONFORMANCE_BIN: join(root, "conformance", "bin.ts"),
  });
  return { ...ran, outputs: await readFile(outputs, "utf8") };
}

describe("the GitHub Action", () => {
  it("is a composite action with the inputs CI needs, each passed to its script", () => {
    expect(action.runs.using).toBe("composite");
    expect(Object.keys(action.inputs)).toEqual(
      expect.arrayContaining([
        "base-url",
        "manifest",
        "rate-limit",
        "profile",
        "strict",
        "baseline",
        "reporters",
      ]),
    );
    expect(action.inputs["base-url"]?.required).toBe(true);
    const step = action.runs.steps.find((s) => s.id === "run");
    expect(step?.run).toBe('bash "$GITHUB_ACTION_PATH/scripts/conformance-action.sh" run');
    for (const name of Object.keys(action.inputs)) {
      const env = `INPUT_${name.toUpperCase().replace(/-/g, "_")}`;
      expect(step?.env?.[env], name).toBe(`\${{ inputs.${name} }}`);
    }
    expect(action.outputs["report-dir"]?.value).toBe("${{ steps.run.outputs.report-dir }}");
  });

  it("runs the kit with every reporter and leaves the reports where a later step uploads them", async () => {
    const ran = await runAction({ "base-url": baseUrl, manifest: "tokens.json", args: FEW_CHECKS });
    expect(ran.stderr).not.toMatch(/::error::/);
    expect(ran.code, ran.stdout + ran.stderr).toBe(0);
    expect(ran.stdout).toContain(`Conformance of ${baseUrl} to the accounting API spec`);
    expect(ran.outputs).toBe("report-dir=conformance-report\nexit-code=0\n");
    const dir = join(workspace, "conformance-report");
    expect(await readFile(join(dir, "conformance.xml"), "utf8")).toMatch(/^<\?xml/);
    expect(await readFile(join(dir, "conformance.html"), "utf8")).toMatch(/^<!doctype html>/);
    expect(await readFile(join(dir, "conformance.svg"), "utf8")).toContain(
      'aria-label="conformance: 3/3 MUST"',
    );
    const report = JSON.parse(await readFile(join(dir, "conformance.json"), "utf8")) as RunReport;
    expect(report.options).toMatchObject({ profile: "spec", strict: false, seed: 5, tokens: "tokens.json" });
    expect(report.results.map((r) => r.id).sort()).toEqual([
      "auth.missing-token",
      "envelope.list-data-array",
      "run.error-envelope",
    ]);
  });

  it("passes the baseline, strict, the profile and a reporter list on several lines", async () => {
    const ran = await runAction({
      "base-url": baseUrl,
      manifest: "tokens.json",
      baseline: "conformance-report/conformance.json",
      strict: "true",
      profile: "reference",
      reporters: "console\njson:second.json",
      "report-dir": "reports/second",
      args: FEW_CHECKS,
    });
    expect(ran.code, ran.stdout + ran.stderr).toBe(0);
    const report = JSON.parse(
      await readFile(join(workspace, "reports", "second", "second.json"), "utf8"),
    ) as RunReport;
    expect(report.options).toMatchObject({ profile: "reference", strict: true });
    expect(report.baseline).toMatchObject({ file: "conformance-report/conformance.json", known: 0, new: 0 });
    expect(ran.outputs).toContain("report-dir=reports/second\n");
  });

  it("fails the step with the kit's status: 2 and one line for bad input, nothing run", async () => {
    const ran = await runAction({ "base-url": baseUrl, reporters: "console tap", args: FEW_CHECKS });
    expect(ran.code).toBe(2);
    expect(ran.stderr).toMatch(/^conformance: .*unknown reporter "tap"/m);
    expect(ran.outputs).toContain("exit-code=2\n");
    const strict = await runAction({ "base-url": baseUrl, strict: "yes" });
    expect(strict.code).toBe(2);
    expect(strict.stdout).toContain("::error::the input strict is true or false, not yes");
  });
});

describe("the implementers' guide (docs/implementers.md), as written", () => {
  /** A command of the guide, run from the kit's sources against the reference on loopback. */
  const kit = (line: string, checks: string) =>
    `node ${join(root, "conformance", "bin.ts")} ${line
      .replace(/^npx conformance ?/, "")
      .replace(/\s+#.*$/, "")
      .replaceAll("http://127.0.0.1:8080", baseUrl)
      .replaceAll("http://127.0.0.1:4010", baseUrl)
      .replaceAll("https://staging.example", baseUrl)} ${checks}`;
  const few = FEW_CHECKS.replace(/--grep (\S+)/, "--grep '$1'");
  const lines = (name: string) =>
    example(name)
      .split("\n")
      .filter((l) => l.startsWith("npx conformance"));

  it("github-action.yml: uses the action with inputs it declares, the required ones given", () => {
    const job = (
      parse(example("github-action.yml")) as {
        conformance: { steps: Array<{ uses?: string; with?: Record<string, string> }> };
      }
    ).conformance;
    const step = job.steps.find((s) => s.uses?.includes("accounting-api-reference") === true);
    const given = Object.keys(step?.with ?? {});
    for (const name of given) expect(Object.keys(action.inputs), name).toContain(name);
    for (const [name, input] of Object.entries(action.inputs))
      if (input.required === true) expect(given, name).toContain(name);
  });

  it("ci-command.sh and baseline.sh: run as written, against a server on loopback instead of port 8080", async () => {
    const commands = [...lines("ci-command.sh"), ...lines("baseline.sh")];
    expect(commands).toHaveLength(3);
    await mkdir(join(workspace, "ci"), { recursive: true });
    await writeFile(join(workspace, "ci", "tokens.json"), await readFile(join(workspace, "tokens.json")));
    for (const line of commands) {
      const ran = await run("bash", ["-c", kit(line, few)], {});
      expect(ran.code, `${line}\n${ran.stdout}${ran.stderr}`).toBe(0);
    }
    expect(await readFile(join(workspace, "ci", "conformance-baseline.json"), "utf8")).toContain('"kit"');
  });

  it("run-the-kit.sh: each line in turn, the runs against the reference, then the comparisons", async () => {
    const commands = lines("run-the-kit.sh");
    expect(commands.length).toBeGreaterThanOrEqual(5);
    await writeFile(join(workspace, "my-tokens.json"), await readFile(join(workspace, "tokens.json")));
    for (const line of commands) {
      const ran = await run("bash", ["-c", kit(line, line.includes(" compare ") ? "" : few)], {});
      expect(ran.code, `${line}\n${ran.stdout}${ran.stderr}`).toBe(0);
    }
    const report = JSON.parse(await readFile(join(workspace, "staging.json"), "utf8")) as RunReport;
    expect(report.results.length).toBeGreaterThan(0);
    expect(await readFile(join(workspace, "compare.html"), "utf8")).toMatch(/^<!doctype html>/i);
  });

  it("tokens.json: the manifest's format, as the kit reads it (with a real token for the elided one)", async () => {
    const fixtures = JSON.parse(await readFile(join(workspace, "tokens.json"), "utf8")) as {
      tokens: Array<{ label: string; token: string; scopes: string[] }>;
    };
    const full = fixtures.tokens.find((t) => t.label === "lumiere-full");
    const written = example("tokens.json");
    expect(written).toContain('"token": "acct_…"');
    const manifest = parseManifest(
      JSON.parse(written.replace("acct_…", full?.token ?? "")),
      "docs/implementers.md",
    );
    expect(manifest.tokens.map((t) => [t.label, [...t.scopes].sort()])).toEqual([
      ["lumiere-full", [...(full?.scopes ?? [])].sort()],
    ]);
  });
});

describe("the GitLab CI snippet", () => {
  it("runs its conformance command as written and leaves the JUnit file GitLab reads", async () => {
    const snippet = parse(await readFile(join(root, "docs", "ci", "gitlab-ci.yml"), "utf8")) as {
      conformance: {
        variables: Record<string, string>;
        script: string[];
        artifacts: { paths: string[]; reports: { junit: string } };
      };
    };
    const job = snippet.conformance;
    const line = job.script.find((l) => l.startsWith("npx conformance "));
    expect(line).toBeDefined();
    // The command as written, npx aside: the shell expands its variables, the kit runs from its sources.
    const command = (line ?? "").replace(/^npx conformance /, `node ${join(root, "conformance", "bin.ts")} `);
    await writeFile(
      join(workspace, "gitlab-baseline.json"),
      await readFile(join(workspace, "conformance-report", "conformance.json")),
    );
    const ran = await run("bash", ["-c", command], {
      ...job.variables,
      CONFORMANCE_BASE_URL: baseUrl,
      CONFORMANCE_TOKENS: "tokens.json",
      CONFORMANCE_BASELINE: "gitlab-baseline.json",
      CONFORMANCE_ARGS: FEW_CHECKS,
    });
    expect(ran.code, ran.stdout + ran.stderr).toBe(0);
    expect(ran.stdout).toContain("baseline: 0 known, 0 new, 0 fixed");
    expect(await readFile(join(workspace, job.artifacts.reports.junit), "utf8")).toMatch(/^<\?xml/);
    expect(job.artifacts.paths).toEqual(["conformance-report/"]);
  });
});
