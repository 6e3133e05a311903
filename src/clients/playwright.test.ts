import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { chmod, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { CHROMIUM_ARGS, CHROMIUM_PATH } from "../test-support/browser.js";
import { readmeExample, ROOT } from "../test-support/readme.js";

/**
 * The Playwright fixture in a real Playwright run, as a project uses it: the README's
 * playwright.config.ts and tests/contacts.spec.ts as written, in a project of their own whose
 * `webServer` starts the reference (`npx accounting-reference`) and a small app
 * (playwright-e2e/app.html, `npm run dev`), with 4 workers in Debian's Chromium. Four projects: the
 * README's tests and playwright-e2e/isolation.spec.ts (16 tests that each leave behind what would break
 * every other worker on a shared state), each with a sandbox per worker and per test.
 *
 * The package is not built here: `accounting-api-reference/playwright` resolves to its source through
 * the project's tsconfig `paths`, and `accounting-reference` is the entry file run by tsx.
 */

const E2E = join(ROOT, "src/clients/playwright-e2e");
const temps: string[] = [];
afterAll(async () => {
  await Promise.all(temps.map((d) => rm(d, { recursive: true, force: true })));
});

const env = Object.fromEntries(
  Object.entries(process.env).filter(([k]) => !k.toLowerCase().startsWith("npm_")),
);

/** A port nobody listens on now (the servers Playwright starts need theirs before they start). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}

async function project(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "acct-playwright-"));
  temps.push(dir);
  await mkdir(join(dir, "tests"));
  await mkdir(join(dir, "node_modules/.bin"), { recursive: true });
  await mkdir(join(dir, "node_modules/@playwright"));
  await symlink(join(ROOT, "node_modules/@playwright/test"), join(dir, "node_modules/@playwright/test"));
  const bin = join(dir, "node_modules/.bin/accounting-reference");
  await writeFile(
    bin,
    `#!/bin/sh\nexec ${join(ROOT, "node_modules/.bin/tsx")} --tsconfig ${join(ROOT, "tsconfig.json")} ${join(ROOT, "src/entry/bin.ts")} "$@"\n`,
  );
  await chmod(bin, 0o755);
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
  await writeFile(join(dir, "playwright.config.ts"), readmeExample("playwright.config.ts"));
  await writeFile(join(dir, "tests/contacts.spec.ts"), readmeExample("tests/contacts.spec.ts"));
  // The README's configuration, with this machine's Chromium and a project per case.
  await writeFile(
    join(dir, "e2e.config.ts"),
    `import { defineConfig } from "@playwright/test";
import type { ReferenceOptions } from "accounting-api-reference/playwright";
import config from "./playwright.config";

const launchOptions = { executablePath: ${JSON.stringify(CHROMIUM_PATH)}, args: ${JSON.stringify(CHROMIUM_ARGS)} };
export default defineConfig<ReferenceOptions>({
  ...config,
  reporter: [["json", { outputFile: "report.json" }]],
  timeout: 30_000,
  projects: [
    { name: "readme, per worker", testDir: "./tests", use: { launchOptions } },
    { name: "readme, per test", testDir: "./tests", use: { launchOptions, sandboxPer: "test" } },
    { name: "isolation, per worker", testDir: ${JSON.stringify(E2E)}, use: { launchOptions } },
    { name: "isolation, per test", testDir: ${JSON.stringify(E2E)}, use: { launchOptions, sandboxPer: "test" } },
  ],
});
`,
  );
  return dir;
}

interface Report {
  stats: { expected: number; unexpected: number; flaky: number; skipped: number };
  suites: Suite[];
  errors: { message?: string }[];
}
interface Suite {
  suites?: Suite[];
  specs?: {
    title: string;
    tests: {
      projectName: string;
      results: { status: string; parallelIndex: number; workerIndex: number; error?: { message?: string } }[];
    }[];
  }[];
}

function results(
  suites: Suite[],
): { project: string; title: string; status: string; parallelIndex: number; error: string }[] {
  return suites.flatMap((s) => [
    ...(s.specs ?? []).flatMap((spec) =>
      spec.tests.flatMap((t) =>
        t.results.map((r) => ({
          project: t.projectName,
          title: spec.title,
          status: r.status,
          parallelIndex: r.parallelIndex,
          error: r.error?.message ?? "",
        })),
      ),
    ),
    ...results(s.suites ?? []),
  ]);
}

describe("the Playwright fixture in a real Playwright run", () => {
  it(
    "runs the README's configuration and tests, and 16 that would break each other on a shared state, with 4 workers",
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
      expect(ran).toHaveLength(2 * 3 + 2 * 16);
      // The work was spread over the four workers, each on its own sandbox.
      expect(new Set(ran.map((r) => r.parallelIndex)).size).toBe(4);
    },
  );
});
