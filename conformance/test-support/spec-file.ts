import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { defaultSpec } from "../../spec/variant.js";

/**
 * The spec beside the project (`shared/spec/` next to the repository or one of its parents), never in
 * it; SPEC_FILE names it elsewhere. Undefined when there is none.
 */
export function specFile(): string | undefined {
  if (process.env.SPEC_FILE !== undefined) return process.env.SPEC_FILE;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, "shared", "spec", defaultSpec().source.file);
    if (existsSync(candidate)) return candidate;
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}
