import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { specFile } from "../test-support/spec-file.js";
import { SPEC_SOURCE } from "./source.js";

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
