import { readFileSync, existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { SPEC_SOURCE } from "./spec/source.js";

/**
 * What a report says about the kit that wrote it, so that a published result says exactly what was
 * checked: the package and its version, and the spec text (file and SHA-256) its clauses were read from.
 */
export interface KitIdentity {
  name: string;
  version: string;
  spec: { file: string; sha256: string };
}

/**
 * The package's name and version, from its package.json: the code runs from `conformance/` (tsx,
 * vitest) or `dist/conformance/` (the build), so the file is found by walking up, not by a fixed path.
 */
export function kitIdentity(): KitIdentity {
  const start = dirname(fileURLToPath(import.meta.url));
  let dir = start;
  while (!existsSync(join(dir, "package.json"))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`no package.json found above ${start}`);
    dir = parent;
  }
  const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as {
    name?: unknown;
    version?: unknown;
  };
  return {
    name: typeof pkg.name === "string" ? pkg.name : "conformance",
    version: typeof pkg.version === "string" ? pkg.version : "0.0.0",
    spec: { file: SPEC_SOURCE.file, sha256: SPEC_SOURCE.sha256 },
  };
}
