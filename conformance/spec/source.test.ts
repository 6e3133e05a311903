import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { SPEC_SOURCE } from "./source.js";

/**
 * The spec lives beside the project (`shared/spec/` next to the repository or one of its parents),
 * never in it; SPEC_FILE names it elsewhere.
 */
function specFile(): string | undefined {
  if (process.env.SPEC_FILE !== undefined) return process.env.SPEC_FILE;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, "shared", "spec", SPEC_SOURCE.file);
    if (existsSync(candidate)) return candidate;
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

describe("the spec the kit was written from", () => {
  it("is the spec beside the project, byte for byte (update SPEC_SOURCE after reading the clauses again)", () => {
    const file = specFile();
    expect(file, `no shared/spec/${SPEC_SOURCE.file} above the project; set SPEC_FILE`).toBeDefined();
    const sha256 = createHash("sha256")
      .update(readFileSync(file ?? ""))
      .digest("hex");
    expect(sha256).toBe(SPEC_SOURCE.sha256);
  });
});
