import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { defaultSpec } from "../../spec/variant.js";
import { specFile } from "../test-support/spec-file.js";

describe("the spec the kit was written from", () => {
  it("is the spec beside the project, byte for byte (update the spec file's source after reading the clauses again)", () => {
    const { source } = defaultSpec();
    const file = specFile();
    expect(file, `no shared/spec/${source.file} above the project; set SPEC_FILE`).toBeDefined();
    const sha256 = createHash("sha256")
      .update(readFileSync(file ?? ""))
      .digest("hex");
    expect(sha256).toBe(source.sha256);
  });
});
