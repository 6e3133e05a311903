import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";

/**
 * The layering rules of .dependency-cruiser.cjs (run by `npm test` over the real tree) refuse what
 * they say they refuse: each case is a two-file tree in a scratch folder, cruised with the real
 * configuration.
 */
const ROOT = join(import.meta.dirname, "..");
const DEPCRUISE = join(ROOT, "node_modules", ".bin", "depcruise");

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function cruise(files: Record<string, string>): { status: number | null; output: string } {
  dir = mkdtempSync(join(tmpdir(), "layers-"));
  copyFileSync(join(ROOT, ".dependency-cruiser.cjs"), join(dir, ".dependency-cruiser.cjs"));
  writeFileSync(
    join(dir, "tsconfig.json"),
    JSON.stringify({ compilerOptions: { module: "NodeNext", moduleResolution: "NodeNext" } }),
  );
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  const run = spawnSync(DEPCRUISE, ["src", "--output-type", "err"], { cwd: dir, encoding: "utf8" });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

const module = "export const x = 1;\n";
const importing = (spec: string) => `import { x } from "${spec}";\nexport const y = x;\n`;

describe("the layering rules", () => {
  it.each([
    [
      "the store imports a door",
      "src/store/a.ts",
      "../doors/api/b.js",
      "src/doors/api/b.ts",
      "store-imports-no-layer-above",
    ],
    [
      "the domain imports validation",
      "src/domain/a.ts",
      "../validation/b.js",
      "src/validation/b.ts",
      "domain-imports-no-layer-above",
    ],
    [
      "serialization imports the store",
      "src/serialization/a.ts",
      "../store/b.js",
      "src/store/b.ts",
      "serialization-imports-no-layer-above",
    ],
    [
      "a door imports the edge",
      "src/doors/pages/a.ts",
      "../../edge/b.js",
      "src/edge/b.ts",
      "doors-imports-no-layer-above",
    ],
    [
      "the API door imports the control door",
      "src/doors/api/a.ts",
      "../control/b.js",
      "src/doors/control/b.ts",
      "api-door-imports-no-other-door",
    ],
    [
      "the model imports anything of src",
      "src/model/a.ts",
      "../store/b.js",
      "src/store/b.ts",
      "model-imports-no-layer-above",
    ],
    [
      "the entry imports a client",
      "src/entry/a.ts",
      "../clients/b.js",
      "src/clients/b.ts",
      "entry-imports-no-layer-above",
    ],
    [
      "the control client runs server code",
      "src/clients/control.ts",
      "../doors/control/table.js",
      "src/doors/control/table.ts",
      "clients-run-no-server-code",
    ],
    [
      "the Playwright fixture runs server code",
      "src/clients/playwright.ts",
      "../entry/reference.js",
      "src/entry/reference.ts",
      "clients-run-no-server-code",
    ],
    [
      "the msw handlers run more of the server than its factory",
      "src/clients/msw.ts",
      "../store/b.js",
      "src/store/b.ts",
      "msw-handlers-run-only-the-factory",
    ],
  ])("refuse %s", (_case, from, spec, to, rule) => {
    const { status, output } = cruise({ [from]: importing(spec), [to]: module });
    expect(status).not.toBe(0);
    expect(output).toContain(rule);
  });

  it("refuse a Node module in the control client, which runs in browsers too", () => {
    const { status, output } = cruise({
      "src/clients/control.ts": 'import { request } from "node:http";\nexport const y = request;\n',
    });
    expect(status).not.toBe(0);
    expect(output).toContain("control-client-uses-no-node-module");
  });

  it("accept the clients' type-only imports of the server, and the msw handlers' factory", () => {
    const { status, output } = cruise({
      "src/clients/control.ts":
        'import type { T } from "../doors/control/table.js";\nexport const y: T = 1;\n',
      "src/doors/control/table.ts": "export type T = number;\n",
      "src/clients/msw.ts": importing("../entry/reference.js"),
      "src/entry/reference.ts": module,
    });
    expect(output).toContain("no dependency violations");
    expect(status).toBe(0);
  });

  it("accept imports that follow the flow, and tests that import from anywhere", () => {
    const { status, output } = cruise({
      "src/doors/api/a.ts": importing("../../store/b.js"),
      "src/store/b.ts": importing("../model/c.js"),
      "src/model/c.ts": module,
      "src/store/b.test.ts": importing("../doors/api/a.js"),
    });
    expect(output).toContain("no dependency violations");
    expect(status).toBe(0);
  });
});
