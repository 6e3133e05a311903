import { readFileSync, existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Spec } from "../spec/schema.js";
import { defaultSpec } from "../spec/variant.js";

/**
 * What a report says about the kit that wrote it, so that a published result says exactly what was
 * checked: the package and its version, and the spec text (file and SHA-256) its clauses were read from
 * (the spec file's `source`: a variant names its own title beside it).
 */
export interface KitIdentity {
  name: string;
  version: string;
  spec: { file: string; sha256: string; title?: string | undefined };
}

/**
 * The package's name and version, from its package.json: the code runs from `conformance/` (tsx,
 * vitest) or `dist/conformance/` (the build), so the file is found by walking up, not by a fixed path.
 */
export function kitIdentity(spec: Spec = defaultSpec()): KitIdentity {
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
    spec: {
      file: spec.source.file,
      sha256: spec.source.sha256,
      ...(spec.title === defaultSpec().title ? {} : { title: spec.title }),
    },
  };
}
