import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { defaultSpec } from "../spec/index.js";

/**
 * The spec's codes, enumeration values, scopes and endpoint paths live in spec/accounting-api.json,
 * read by the reference through `compileSpec` (issue 26): no string literal in src/ (its tests and
 * test support aside) may repeat one. A literal that does is a constant that would shadow a variant.
 *
 * Not scanned: numbers. §8's 50, 200, 100 and 60 are also a port's digits, a page of the control
 * journal, a token's name limit, seconds in a minute; a scan of number literals flags mostly those,
 * so the numbers are held by the variant tests instead (a shadowing constant makes them fail).
 */

const ROOT = join(import.meta.dirname, "..");
const SRC = join(ROOT, "src");

/** What the default file holds that code must not repeat, with the key that holds it. */
function heldValues(): Map<string, string> {
  const spec = defaultSpec();
  const held = new Map<string, string>();
  const hold = (value: string, key: string) => {
    if (!held.has(value)) held.set(value, key);
  };
  for (const [role, { code }] of Object.entries(spec.errors)) hold(code, `errors.${role}.code`);
  for (const [name, values] of Object.entries(spec.enums)) for (const v of values) hold(v, `enums.${name}`);
  for (const group of ["endpoints", "announced"] as const) {
    for (const [id, row] of Object.entries(spec[group])) hold(row.path, `${group}.${id}.path`);
  }
  return held;
}

/**
 * Literals that equal a held value but are not it, each with why. A situation's name (a key of
 * `errors`) may equal its default code (`forbidden`, `unauthorized`): it names the situation, and
 * the spec says which code answers it. Keys are not values, so every situation name is allowed.
 */
const NOT_THE_SPEC: Record<string, { values: string[]; why: string }> = {
  "src/openapi/examples.ts": {
    values: ["CLIENT", "SUPPLIER", "SERVICE", "PAID"],
    why: "example records copied from the fixtures: data, like fixtures/ (which a variant must still serve)",
  },
  "src/store/fixtures/records.ts": {
    values: ["CLIENT", "SUPPLIER", "BOTH"],
    why: "the fixtures' rule of who is billed and who bills: the file says which types exist, not what each means",
  },
  "src/store/token-rules.ts": {
    values: ["not_found"],
    why: "the token registry's own reason, not §7's code",
  },
  "src/store/tokens.ts": { values: ["not_found"], why: "the token registry's own reason, not §7's code" },
};

function sources(): string[] {
  return readdirSync(SRC, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && /\.tsx?$/.test(e.name) && !/\.(test|spec)\.tsx?$/.test(e.name))
    .map((e) => join(e.parentPath, e.name))
    .filter((path) => !relative(SRC, path).startsWith("test-support"));
}

function literalsIn(file: string): { text: string; line: number }[] {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
  const found: { text: string; line: number }[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) {
      found.push({ text: node.text, line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1 });
    }
    node.forEachChild(visit);
  };
  visit(source);
  return found;
}

describe("no constant in src/ repeats what the spec file holds (issue 26)", () => {
  it("finds no string literal equal to a code, an enumeration value, a scope or a path of the file", () => {
    const held = heldValues();
    const situations = new Set(Object.keys(defaultSpec().errors));
    const repeats: string[] = [];
    for (const file of sources()) {
      const name = relative(ROOT, file);
      const allowed = NOT_THE_SPEC[name]?.values ?? [];
      for (const { text, line } of literalsIn(file)) {
        const key = held.get(text);
        if (key === undefined || situations.has(text) || allowed.includes(text)) continue;
        repeats.push(`${name}:${line} "${text}" (the file's ${key})`);
      }
    }
    expect(repeats).toEqual([]);
  });

  it("the scan sees what it looks for: a literal planted in a source is found", () => {
    const held = heldValues();
    expect(held.get("invalid_request")).toBe("errors.invalidRequest.code");
    expect(held.get("contacts:read")).toBe("enums.scopes");
    expect(held.get("/api/v1/invoices")).toBe("endpoints.listInvoices.path");
    const planted = join(SRC, "spec-literals.test.ts");
    expect(literalsIn(planted).some((l) => l.text === "/api/v1/invoices")).toBe(true);
  });

  it("every exception is still needed", () => {
    const held = heldValues();
    for (const [file, { values }] of Object.entries(NOT_THE_SPEC)) {
      const texts = new Set(literalsIn(join(ROOT, file)).map((l) => l.text));
      for (const value of values) {
        expect(held.has(value), `${value} is held by the file`).toBe(true);
        expect(texts.has(value), `${file} still has "${value}"`).toBe(true);
      }
    }
  });
});
