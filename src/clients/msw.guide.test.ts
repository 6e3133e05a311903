import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { example } from "../test-support/readme.js";

/**
 * The frontend guide's component tests (docs/frontend.md) run as written: each of its examples there
 * is a file of that name (`vitest.setup.ts`), written to a folder of its own, and run by the runner it
 * is written for, Vitest and Jest, in a process of their own. Only the package's name is mapped, to
 * this checkout (the sources for Vitest, their JavaScript for Jest); `conformance/pack.test.ts` checks
 * the installed package's export itself.
 */

const root = fileURLToPath(new URL("../..", import.meta.url));
// Inside the checkout, so that Vitest, msw and jsdom resolve from its node_modules.
const dir = join(root, "dist", `readme-examples-${process.pid}`);
/**
 * Jest has an install of its own (its jsdom environment's types would bring lib.dom into the whole
 * program): the Jest files run from a folder inside it, so that Jest and jest-fixed-jsdom resolve
 * from there, and msw from the checkout above.
 */
const jestHome = join(root, "scripts", "jest-example");
const jestDir = join(jestHome, `readme-${process.pid}`);

/** The guide's examples for Vitest and Jest, by file name. */
const FILES = [
  "in-process.ts",
  "vitest.config.ts",
  "api.ts",
  "vitest.setup.ts",
  "contacts.test.ts",
  "jest.config.mjs",
  "jest.setup.mjs",
  "contacts.test.mjs",
];

// The outer run's variables would tell the nested runners they are inside a worker.
const env = Object.fromEntries(
  Object.entries(process.env).filter(([k]) => !k.startsWith("VITEST") && !k.toLowerCase().startsWith("npm_")),
);

interface Ran {
  code: number;
  output: string;
}

function run(
  command: string,
  args: string[],
  cwd: string,
  extraEnv: Record<string, string> = {},
): Promise<Ran> {
  return promisify(execFile)(command, args, {
    cwd,
    env: { ...env, NO_COLOR: "1", FORCE_COLOR: "0", ...extraEnv },
    maxBuffer: 16 * 1024 * 1024,
  }).then(
    ({ stdout, stderr }) => ({ code: 0, output: stdout + stderr }),
    (e: { code?: number; stdout?: string; stderr?: string }) => ({
      code: typeof e.code === "number" ? e.code : -1,
      output: (e.stdout ?? "") + (e.stderr ?? ""),
    }),
  );
}

let files: Map<string, string>;

beforeAll(async () => {
  files = new Map(FILES.map((name) => [name, example(name)]));
  await mkdir(dir, { recursive: true });
  await mkdir(jestDir, { recursive: true });
  for (const [name, code] of files) await writeFile(join(name.endsWith(".mjs") ? jestDir : dir, name), code);
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
  await rm(jestDir, { recursive: true, force: true });
});

describe("the frontend guide: component tests", () => {
  it("names each file on its first line, as the reader sees it", () => {
    for (const [name, code] of files) expect(code.split("\n")[0]).toMatch(new RegExp(`^// ${name}\\b`));
  });

  it(
    "the in-process example and the Vitest setup run under Vitest and jsdom",
    { timeout: 120_000 },
    async () => {
      // in-process.ts is a script: run as a test that reads what it prints.
      await writeFile(
        join(dir, "in-process.run.test.ts"),
        [
          'import { expect, it, vi } from "vitest";',
          'it("prints the status and the rate-limit state", async () => {',
          '  const log = vi.spyOn(console, "log");',
          '  await import("./in-process.ts");',
          "  expect(log).toHaveBeenCalledWith(200, '\"per-token\"; r=99; t=60');",
          "});",
        ].join("\n"),
      );
      await writeFile(
        join(dir, "harness.config.ts"),
        [
          'import { mergeConfig } from "vitest/config";',
          'import readme from "./vitest.config.ts";',
          "export default mergeConfig(readme, {",
          "  resolve: {",
          "    alias: [",
          `      { find: /^accounting-api-reference\\/msw$/, replacement: ${JSON.stringify(join(root, "src/clients/msw.ts"))} },`,
          `      { find: /^accounting-api-reference$/, replacement: ${JSON.stringify(join(root, "src/index.ts"))} },`,
          "    ],",
          "  },",
          `  test: { root: ${JSON.stringify(dir)}, include: ["*.test.ts"], exclude: [] },`,
          "});",
        ].join("\n"),
      );
      const vitest = join(root, "node_modules", "vitest", "vitest.mjs");
      const ran = await run(process.execPath, [vitest, "run", "--config", "harness.config.ts"], dir);
      expect(ran.output).toMatch(/Tests\s+4 passed \(4\)/);
      expect(ran.code, ran.output).toBe(0);
    },
  );

  it("the Jest setup runs under Jest, jest-fixed-jsdom and ES modules", { timeout: 240_000 }, async () => {
    const jest = join(jestHome, "node_modules", "jest", "bin", "jest.js");
    if (!existsSync(jest)) {
      // `npm install` with the lock rather than `npm ci`: npm 11 refuses `ci` here over platform
      // packages the lock leaves out (@unrs/resolver-binding-*); the lock is followed all the same, and
      // `--no-save` keeps npm from writing those packages into it: a test run leaves the checkout clean.
      const install = await run(
        "npm",
        ["install", "--no-save", "--prefer-offline", "--no-audit", "--no-fund"],
        jestHome,
      );
      expect(install.code, install.output).toBe(0);
    }
    // Jest does not read TypeScript without a transform of its own: the sources, as JavaScript.
    const lib = join(dir, "lib");
    const sources = await collect(join(root, "src"));
    await build({
      entryPoints: sources,
      outdir: lib,
      outbase: join(root, "src"),
      format: "esm",
      platform: "node",
      target: "node20",
      jsx: "automatic",
      jsxImportSource: "hono/jsx",
      logLevel: "warning",
    });
    await writeFile(
      join(jestDir, "harness.jest.config.mjs"),
      [
        'import readme from "./jest.config.mjs";',
        "export default {",
        "  ...readme,",
        `  rootDir: ${JSON.stringify(jestDir)},`,
        '  testMatch: ["<rootDir>/*.test.mjs"],',
        "  moduleNameMapper: {",
        `    "^accounting-api-reference/msw$": ${JSON.stringify(join(lib, "clients", "msw.js"))},`,
        `    "^accounting-api-reference$": ${JSON.stringify(join(lib, "index.js"))},`,
        "  },",
        "};",
      ].join("\n"),
    );
    const ran = await run(process.execPath, [jest, "--config", "harness.jest.config.mjs", "--ci"], jestDir, {
      NODE_OPTIONS: "--experimental-vm-modules",
    });
    expect(ran.output).toMatch(/Tests:\s+1 passed, 1 total/);
    expect(ran.code, ran.output).toBe(0);
  });
});

/** The source files of the package (no tests, no test support). */
async function collect(from: string): Promise<string[]> {
  const entries = await readdir(from, { withFileTypes: true, recursive: true });
  return entries
    .filter((e) => e.isFile() && /\.tsx?$/.test(e.name) && !/\.test\.tsx?$/.test(e.name))
    .map((e) => join(e.parentPath, e.name))
    .filter((path) => !path.includes("test-support"));
}
