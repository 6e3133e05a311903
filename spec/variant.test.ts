import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadSpecFile } from "./file.js";
import { SpecVariantError, applyVariant, defaultSpec, diffSpecs, mergePatch } from "./variant.js";

const problemsOf = (variant: unknown): string[] => {
  try {
    applyVariant(variant);
  } catch (err) {
    if (err instanceof SpecVariantError) return err.problems.map((p) => `${p.path}: ${p.message}`);
    throw err;
  }
  return [];
};

describe("JSON Merge Patch (RFC 7396), the way a variant is applied", () => {
  it.each([
    // RFC 7396 Appendix A, a selection.
    [{ a: "b" }, { a: "c" }, { a: "c" }],
    [{ a: "b" }, { b: "c" }, { a: "b", b: "c" }],
    [{ a: "b" }, { a: null }, {}],
    [{ a: ["b"] }, { a: "c" }, { a: "c" }],
    [{ a: [{ b: "c" }] }, { a: [1] }, { a: [1] }],
    [{ a: { b: "c" } }, { a: { b: "d", c: null } }, { a: { b: "d" } }],
    [{ e: null }, { a: 1 }, { e: null, a: 1 }],
    [
      ["a", "b"],
      ["c", "d"],
      ["c", "d"],
    ],
    [{ a: "foo" }, null, null],
    [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
  ] as const)("%j patched by %j is %j", (target, patch, result) => {
    expect(mergePatch(structuredClone(target) as never, structuredClone(patch) as never)).toEqual(result);
  });
});

describe("a spec variant", () => {
  it("changes what it names and nothing else", () => {
    const variant = applyVariant({ limits: { page: { max: 500 } } });
    expect(variant.limits.page).toEqual({ ...defaultSpec().limits.page, max: 500 });
    expect(diffSpecs(defaultSpec(), variant)).toEqual([{ path: "limits.page.max", a: 200, b: 500 }]);
  });

  it.each([
    ["page max 500", { limits: { page: { max: 500 } } }],
    ["60 requests a minute", { limits: { rate: { requests: 60 } } }],
    ["contact name max 100", { limits: { contact: { name: 100 } } }],
    ["duplicate sku 409 conflict", { errors: { duplicateSku: { status: 409, code: "conflict" } } }],
    [
      "an optional product currency",
      { fields: { product: { currency: { type: "string", required: false, maxLength: 3 } } } },
    ],
    ["a contact type more", { enums: { contactTypes: ["CLIENT", "SUPPLIER", "BOTH", "PROSPECT"] } }],
  ])("%s is accepted", (_, variant) => {
    expect(problemsOf(variant)).toEqual([]);
  });

  it("is refused with every bad key path named at once", () => {
    expect(
      problemsOf({
        limits: { page: { maximum: 500 }, rate: { requests: "100" }, product: { sku: 0 } },
        enums: { contactTypes: ["CLIENT", "CLIENT"] },
        errors: { duplicateSku: { status: 409, code: "invalid_request" } },
        colour: "blue",
      }),
    ).toEqual([
      "enums.contactTypes[1]: repeats CLIENT",
      "limits.page.maximum: is not a key of the spec file",
      "limits.rate.requests: must be an integer",
      "limits.product.sku: must be at least 1",
      "errors.duplicateSku.code: invalid_request is errors.invalidRequest's code with status 400: one code, one status",
      "colour: is not a key of the spec file",
    ]);
  });

  it.each([
    [{ limits: { page: { max: 20 } } }, "limits.page.max: must be at least limits.page.default (50)"],
    [{ limits: { page: { min: 60 } } }, "limits.page.default: must be at least limits.page.min (60)"],
    [
      { endpoints: { listContacts: { scope: "contacts:list" } } },
      "endpoints.listContacts.scope: contacts:list is not in enums.scopes",
    ],
    [
      { endpoints: { listProducts: { path: "/api/v1/contacts" } } },
      "endpoints.listProducts.path: GET /api/v1/contacts is also endpoints.listContacts",
    ],
    [
      { endpoints: { listContacts: { method: "POST" } } },
      'endpoints.listContacts.method: Invalid input: expected "GET"',
    ],
    [
      { fields: { product: { sku: { type: "string", required: true } } } },
      "fields.product.sku: sku is a built-in product field",
    ],
    [
      { fields: { contact: { vip: { type: "boolean", required: false, maxLength: 3 } } } },
      "fields.contact.vip.maxLength: applies to a string field only",
    ],
    [
      { fields: { contact: { "Bad name": { type: "string", required: false } } } },
      "fields.contact.Bad name: must be a camelCase field name",
    ],
    [{ enums: null }, "enums: is missing (expected object): only added fields may be removed with null"],
    [{ limits: { rate: { windowSeconds: 0.5 } } }, "limits.rate.windowSeconds: must be an integer"],
    [[], "(the whole file): must be a JSON object (a partial spec file)"],
  ])("%j is refused: %s", (variant, problem) => {
    expect(problemsOf(variant)).toContain(problem);
  });

  it("removes a field a base added with null", () => {
    const base = applyVariant({ fields: { product: { currency: { type: "string", required: false } } } });
    expect(applyVariant({ fields: { product: { currency: null } } }, base).fields.product).toEqual({});
  });

  it("is frozen: no reader can change the spec another reads", () => {
    const variant = applyVariant({});
    expect(Object.isFrozen(variant.limits.page)).toBe(true);
    expect(Object.isFrozen(variant.enums.scopes)).toBe(true);
  });
});

describe("a spec variant file", () => {
  const write = async (text: string): Promise<string> => {
    const file = join(await mkdtemp(join(tmpdir(), "spec-variant-")), "variant.json");
    await writeFile(file, text);
    return file;
  };

  it("is read and merged over the default", async () => {
    const spec = await loadSpecFile(await write('{ "limits": { "rate": { "requests": 60 } } }'));
    expect(spec.limits.rate).toEqual({ requests: 60, windowSeconds: 60 });
  });

  it.each([
    ["{ limits: }", "is not JSON"],
    ['{ "limits": { "page": { "max": 20 } } }', "limits.page.max: must be at least limits.page.default (50)"],
  ])("%s is refused, naming the file: %s", async (text, problem) => {
    const file = await write(text);
    const refusal = loadSpecFile(file);
    await expect(refusal).rejects.toThrow(SpecVariantError);
    await expect(refusal).rejects.toThrow(file);
    await expect(refusal).rejects.toThrow(problem);
  });

  it("that does not exist is refused, naming it", async () => {
    await expect(loadSpecFile("/nonexistent/variant.json")).rejects.toThrow(
      "/nonexistent/variant.json is not a valid spec:\n  (the whole file): cannot be read: ENOENT",
    );
  });
});
