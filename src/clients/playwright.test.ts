import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { CHROMIUM_ARGS, CHROMIUM_PATH } from "../test-support/browser.js";
import { installBinFromSources } from "../test-support/installed.js";
import { example, ROOT } from "../test-support/readme.js";
import { freePort } from "../test-support/serve.js";

/**
 * The Playwright fixture in a real Playwright run, as a project uses it: the frontend guide's
 * playwright.config.ts (docs/frontend.md) as written, in a project of its own whose `webServer` starts
 * the reference (the package's bin where an install puts it) and a small app (playwright-e2e/app.html,
 * `npm run dev`), with the guide's 4 workers in Debian's Chromium. Its projects:
 * - the guide's spec files as written (`handOff` from the guide's config), a sandbox per worker and
 *   per test;
 * - the guide's auto fixture (tests/fixtures.ts) with its tests/contacts.spec.ts importing from it,
 *   without `handOff`: the app reads `window.appConfig`;
 * - the package's own suite, playwright-e2e/*.spec.ts (several spec files, none with a setup of its
 *   own, each test leaving behind what would break every other worker on a shared state), a sandbox
 *   per worker and per test.
 *
 * The package is not built here: `accounting-api-reference/playwright` resolves to its source through
 * the project's tsconfig `paths`, and the bin runs the sources through tsx.
 */

const E2E = join(ROOT, "src/clients/playwright-e2e");
const SPEC_FILES = ["contacts.spec.ts", "faults.spec.ts", "journal.spec.ts", "warnings.spec.ts"];
const temps: string[] = [];
afterAll(async () => {
  await Promise.all(temps.map((d) => rm(d, { recursive: true, force: true })));
});

const env = Object.fromEntries(
  Object.entries(process.env).filter(([k]) => !k.toLowerCase().startsWith("npm_")),
);

async function project(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "acct-playwright-"));
  temps.push(dir);
  await mkdir(join(dir, "tests"));
  await mkdir(join(dir, "auto"));
  await mkdir(join(dir, "node_modules/@playwright"), { recursive: true });
  await symlink(join(ROOT, "node_modules/@playwright/test"), join(dir, "node_modules/@playwright/test"));
  await installBinFromSources(dir);
  await writeFile(
    join(dir, "package.json"),
    JSON.stringify({
      name: "e2e",
      private: true,
      type: "module",
      scripts: { dev: `node ${join(E2E, "app-server.mjs")}` },
    }),
  );
  await writeFile(
    join(dir, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        baseUrl: ".",
        paths: { "accounting-api-reference/playwright": [join(ROOT, "src/clients/playwright.ts")] },
      },
    }),
  );
  await writeFile(join(dir, "playwright.config.ts"), example("playwright.config.ts"));
  for (const name of ["tests/contacts.spec.ts", "tests/failures.spec.ts"]) {
    await writeFile(join(dir, name), example(name));
  }
  // The auto fixture's project: the guide's fixtures.ts, and a spec file importing from it in place
  // of the package, as the guide says.
  await writeFile(join(dir, "auto/fixtures.ts"), example("tests/fixtures.ts"));
  const viaFixtures = example("tests/contacts.spec.ts").replace(
    'from "accounting-api-reference/playwright"',
    'from "./fixtures"',
  );
  expect(viaFixtures).not.toBe(example("tests/contacts.spec.ts"));
  await writeFile(join(dir, "auto/contacts.spec.ts"), viaFixtures);
  // The guide's configuration, with this machine's Chromium and a project per case.
  await writeFile(
    join(dir, "e2e.config.ts"),
    `import { defineConfig } from "@playwright/test";
import type { ReferenceOptions } from "accounting-api-reference/playwright";
import config from "./playwright.config";

const launchOptions = { executablePath: ${JSON.stringify(CHROMIUM_PATH)}, args: ${JSON.stringify(CHROMIUM_ARGS)} };
const suite = ${JSON.stringify(E2E)};
export default defineConfig<ReferenceOptions>({
  ...config,
  reporter: [["json", { outputFile: "report.json" }]],
  timeout: 30_000,
  projects: [
    { name: "guide, per worker", testDir: "./tests", use: { launchOptions } },
    { name: "guide, per test", testDir: "./tests", use: { launchOptions, sandboxPer: "test" } },
    { name: "guide's auto fixture", testDir: "./auto", use: { launchOptions, handOff: undefined } },
    { name: "suite, per worker", testDir: suite, use: { launchOptions } },
    { name: "suite, per test", testDir: suite, use: { launchOptions, sandboxPer: "test" } },
  ],
});
`,
  );
  return dir;
}

interface Annotation {
  type: string;
  description?: string;
}
interface Report {
  config: { workers: number };
  stats: { expected: number; unexpected: number; flaky: number; skipped: number };
  suites: Suite[];
  errors: { message?: string }[];
}
interface Suite {
  file?: string;
  suites?: Suite[];
  specs?: {
    title: string;
    file: string;
    tests: {
      projectName: string;
      annotations?: Annotation[];
      results: {
        status: string;
        parallelIndex: number;
        error?: { message?: string };
        annotations?: Annotation[];
      }[];
    }[];
  }[];
}

interface Ran {
  project: string;
  file: string;
  title: string;
  status: string;
  parallelIndex: number;
  error: string;
  warnings: string[];
}

function results(suites: Suite[]): Ran[] {
  return suites.flatMap((s) => [
    ...(s.specs ?? []).flatMap((spec) =>
      spec.tests.flatMap((t) =>
        t.results.map((r) => ({
          project: t.projectName,
          file: spec.file,
          title: spec.title,
          status: r.status,
          parallelIndex: r.parallelIndex,
          error: r.error?.message ?? "",
          warnings: [
            ...new Set(
              [...(t.annotations ?? []), ...(r.annotations ?? [])]
                .filter((a) => a.type === "warning")
                .map((a) => a.description ?? ""),
            ),
          ],
        })),
      ),
    ),
    ...results(s.suites ?? []),
  ]);
}

describe("the Playwright fixture in a real Playwright run", () => {
  it(
    "runs the guide's configuration, spec files and auto fixture, and the package's suite of several spec files, with 4 workers",
    { timeout: 300_000 },
    async () => {
      expect(existsSync(CHROMIUM_PATH), `no Chromium at ${CHROMIUM_PATH} (apt-get install chromium)`).toBe(
        true,
      );
      const dir = await project();
      const [port, appPort] = [await freePort(), await freePort()];
      const child = spawn(join(ROOT, "node_modules/.bin/playwright"), ["test", "-c", "e2e.config.ts"], {
        cwd: dir,
        env: {
          ...env,
          CI: "1",
          REFERENCE_PORT: String(port),
          REFERENCE_CONTROL_KEY: "e2e-control-key-0123456789",
          REFERENCE_NOW: "2026-11-20T12:00:00Z",
          APP_URL: `http://127.0.0.1:${appPort}`,
        },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let output = "";
      child.stdout.on("data", (b: Buffer) => (output += b.toString()));
      child.stderr.on("data", (b: Buffer) => (output += b.toString()));
      // Bounded: Playwright's own timeouts end a stuck test; this ends a stuck runner.
      const killer = setTimeout(() => child.kill("SIGKILL"), 280_000);
      const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
      clearTimeout(killer);

      const reportFile = join(dir, "report.json");
      expect(existsSync(reportFile), output.slice(-3000)).toBe(true);
      const report = JSON.parse(await readFile(reportFile, "utf8")) as Report;
      const ran = results(report.suites);
      const failed = ran.filter((r) => r.status !== "passed");
      expect(
        failed.map((r) => `${r.project} › ${r.title}: ${r.error.slice(0, 500)}`),
        output.slice(-3000),
      ).toEqual([]);
      expect(
        report.errors.map((e) => e.message ?? ""),
        output.slice(-3000),
      ).toEqual([]);
      expect(code, output.slice(-3000)).toBe(0);
      expect(report.stats).toMatchObject({ unexpected: 0, flaky: 0, skipped: 0 });

      // The guide's 4 workers, each busy: the work was spread over them.
      expect(report.config.workers).toBe(4);
      expect(new Set(ran.map((r) => r.parallelIndex)).size).toBe(4);
      const per = (project: string) => ran.filter((r) => r.project === project);
      expect(per("guide, per worker")).toHaveLength(4);
      expect(per("guide, per test")).toHaveLength(4);
      expect(per("guide's auto fixture")).toHaveLength(2);
      for (const project of ["suite, per worker", "suite, per test"]) {
        // Several spec files, none with a setup of its own.
        expect([...new Set(per(project).map((r) => basename(r.file)))].sort(), project).toEqual(SPEC_FILES);
        expect(per(project), project).toHaveLength(8 + 8 + 2 + 3);
      }

      // The warning: on the two tests whose page missed the sandbox, with what the page fetched, and on
      // no other test (every other one, the auto fixture's included, reached its sandbox).
      const warned = ran.filter((r) => r.warnings.length > 0);
      expect(warned.map((r) => `${r.project} › ${r.title}`).sort()).toEqual(
        ["suite, per test", "suite, per worker"]
          .flatMap((p) => [
            `${p} › warns: the page asked another address`,
            `${p} › warns: the page asked the default state, without the sandbox's token`,
          ])
          .sort(),
      );
      for (const r of warned) {
        expect(r.warnings).toHaveLength(1);
        expect(r.warnings[0]).toMatch(
          /^accounting-api-reference\/playwright: sandbox sbx_\S+ saw no API request/,
        );
        expect(r.warnings[0]).toContain("What its pages fetched: GET ");
        expect(r.warnings[0]).toContain("test.use({ warnUnused: false })");
      }
      expect(output).toContain("saw no API request during this test");
    },
  );

  it("the package's suite hands the token to no page itself: the guide's configuration does", async () => {
    for (const file of SPEC_FILES) {
      const code = await readFile(join(E2E, file), "utf8");
      expect(code, file).toContain('from "../playwright.js"');
      expect(code, file).not.toMatch(/beforeEach|addInitScript|setItem/);
    }
  });
});
