import { spawnSync } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

/**
 * scripts/build-if-stale.mjs in a scratch project whose `npm run build` only counts itself and
 * stamps, as the real one does after tsc: what matters is whether `npm start` would build.
 */
const SCRIPT = join(import.meta.dirname, "build-if-stale.mjs");

let dir: string;
/** How many times `npm run build` ran. */
const builds = () => (existsSync(join(dir, "builds")) ? readFileSync(join(dir, "builds"), "utf8").length : 0);
const prestart = () => {
  const res = spawnSync(process.execPath, [join(dir, "scripts", "build-if-stale.mjs")], { cwd: dir });
  expect(res.status, res.stderr.toString()).toBe(0);
};
/** Moves a path's modification time `seconds` into the future, past the stamp's. */
const touch = (path: string, seconds = 5) => {
  const at = new Date(Date.now() + seconds * 1000);
  utimesSync(path, at, at);
};

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "build-if-stale-"));
  mkdirSync(join(dir, "scripts"));
  copyFileSync(SCRIPT, join(dir, "scripts", "build-if-stale.mjs"));
  mkdirSync(join(dir, "src", "routing"), { recursive: true });
  mkdirSync(join(dir, "conformance"));
  writeFileSync(join(dir, "src", "routing", "a.ts"), "export const a = 1;\n");
  writeFileSync(join(dir, "src", "routing", "a.test.ts"), "\n");
  writeFileSync(join(dir, "tsconfig.json"), "{}\n");
  writeFileSync(
    join(dir, "package.json"),
    JSON.stringify({
      type: "module",
      scripts: {
        build:
          "node -e \"require('fs').appendFileSync('builds','x')\" && node scripts/build-if-stale.mjs --stamp",
      },
    }),
  );
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("scripts/build-if-stale.mjs (npm start's prestart)", () => {
  it("builds when there is no build yet (a fresh clone), then not again while nothing changed", () => {
    prestart();
    expect(builds()).toBe(1);
    prestart();
    prestart();
    expect(builds()).toBe(1);
  });

  it("builds again when a source, a config or the lockfile changed, and when a source was deleted", () => {
    prestart();
    touch(join(dir, "src", "routing", "a.ts"));
    prestart();
    expect(builds()).toBe(2);
    touch(join(dir, "tsconfig.json"), 10);
    prestart();
    expect(builds()).toBe(3);
    rmSync(join(dir, "src", "routing", "a.ts"));
    touch(join(dir, "src", "routing"), 15);
    prestart();
    expect(builds()).toBe(4);
  });

  it("builds again when the spec file's sources change, and does without spec/ at all", () => {
    prestart();
    mkdirSync(join(dir, "spec"));
    writeFileSync(join(dir, "spec", "schema.ts"), "export const s = 1;\n");
    touch(join(dir, "spec", "schema.ts"));
    touch(join(dir, "spec"));
    prestart();
    expect(builds()).toBe(2);
  });

  it("does not build for a changed test file, which the build leaves out", () => {
    prestart();
    touch(join(dir, "src", "routing", "a.test.ts"));
    prestart();
    expect(builds()).toBe(1);
  });

  it("builds again when dist/ is deleted", () => {
    prestart();
    rmSync(join(dir, "dist"), { recursive: true });
    prestart();
    expect(builds()).toBe(2);
  });
});
