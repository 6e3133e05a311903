import { readFileSync, readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { defaultSpec } from "../../spec/variant.js";

/**
 * No string of the kit repeats what the spec file holds: every error code, enumeration value, scope and
 * endpoint path a check expects comes from the run's spec (`ctx.spec`), so that a variant reaches it. A
 * literal equal to one of the default file's values is a constant shadowing the file: a run under a
 * variant would keep the default there. Numbers are not scanned (see DECISIONS.md, "Spec variants, the
 * kit": 1, 50, 100, 200 are everywhere for other reasons); the kit's own tests of the limits, run under
 * variants, stand for them.
 */

const ROOT = fileURLToPath(new URL("..", import.meta.url));

/**
 * The literals allowed, each with why: the kit's own readings of open points name a value of the spec's
 * enumerations, and the keys of the spec file's error table are names, not codes.
 */
const ALLOWED: ReadonlyArray<{ file: string; literal: string; why: string }> = [
  ...["BOTH", "CLIENT", "SUPPLIER"].map((literal) => ({
    file: "spec/kit-spec.ts",
    literal,
    why: "spec-gaps #2, the kit's reading (BOTH_READING): a contact of type BOTH answers the CLIENT and SUPPLIER filters",
  })),
];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "test-support" ? [] : sourceFiles(path);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts") ? [path] : [];
  });
}

/** Every string literal of a file (template pieces included), with its line. */
function literals(file: string): Array<{ text: string; line: number }> {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
  const out: Array<{ text: string; line: number }> = [];
  const visit = (node: ts.Node): void => {
    if (
      ts.isStringLiteralLike(node) ||
      ts.isTemplateHead(node) ||
      ts.isTemplateMiddle(node) ||
      ts.isTemplateTail(node)
    ) {
      // An import's module name or a property key is no value.
      const parent = node.parent;
      const isKey = ts.isPropertyAssignment(parent) && parent.name === node;
      // `{ error: "unauthorized" }` names a situation of the error table (a key of the file), not a code.
      const isRole =
        ts.isPropertyAssignment(parent) && parent.initializer === node && parent.name.getText() === "error";
      if (!ts.isImportDeclaration(parent) && !ts.isExportDeclaration(parent) && !isKey && !isRole)
        out.push({ text: node.text, line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

/** The default file's values a literal must not repeat, each with the key it is at. */
function specValues(): Map<string, string> {
  const spec = defaultSpec();
  const values = new Map<string, string>();
  for (const [role, { code }] of Object.entries(spec.errors)) values.set(code, `errors.${role}.code`);
  for (const [name, list] of Object.entries(spec.enums)) for (const v of list) values.set(v, `enums.${name}`);
  for (const group of ["endpoints", "announced"] as const)
    for (const [id, e] of Object.entries(spec[group])) {
      values.set(e.path, `${group}.${id}.path`);
      values.set(e.scope, `${group}.${id}.scope`);
    }
  return values;
}

describe("the kit's source", () => {
  it("repeats no error code, enumeration value, scope or endpoint path of the spec file", () => {
    const values = specValues();
    const found: string[] = [];
    for (const file of sourceFiles(ROOT)) {
      const name = relative(ROOT, file);
      for (const { text, line } of literals(file)) {
        const key = values.get(text);
        if (key === undefined) continue;
        if (ALLOWED.some((a) => a.file === name && a.literal === text)) continue;
        found.push(`${name}:${line} "${text}" repeats ${key}`);
      }
    }
    expect(found).toEqual([]);
  });

  it("scans what it means to: the default file's values are found where a test plants them", () => {
    const values = specValues();
    expect(values.get("invalid_request")).toMatch(/^errors\.(invalidRequest|duplicateSku)\.code$/);
    expect(values.get("CLIENT")).toBe("enums.contactTypes");
    expect(values.get("contacts:read")).toBe("endpoints.listContacts.scope");
    expect(values.get("/api/v1/contacts")).toMatch(/^endpoints\.(list|create)Contact(s)?\.path$/);
    expect(literals(fileURLToPath(import.meta.url)).some((l) => l.text === "invalid_request")).toBe(true);
  });
});
