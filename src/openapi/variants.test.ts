import { validate as readmeValidate, compileErrors } from "@readme/openapi-parser";
import { Validator as SeriousmeValidator } from "@seriousme/openapi-schema-validator";
import { describe, expect, it } from "vitest";
import { applyVariant } from "../../spec/index.js";
import { OpenApiValidator } from "../test-support/openapi-validator.js";
import { buildOpenApiDocument, renderOpenApiJson, type OpenApiDocument } from "./document.js";

/**
 * Each variant of issue 26's matrix has a document that the validators we did not write accept and
 * that shows the variant's numbers, codes and fields (the served answers are judged by it in
 * src/doors/api/spec-variants.test.ts).
 */

const VARIANTS = {
  "page max 500": { limits: { page: { max: 500 } } },
  "60 requests a minute": { limits: { rate: { requests: 60 } } },
  "contact name max 100": { limits: { contact: { name: 100 } } },
  "duplicate sku 409 conflict": { errors: { duplicateSku: { status: 409, code: "conflict" } } },
  "duplicate sku 400 duplicate_sku": { errors: { duplicateSku: { status: 400, code: "duplicate_sku" } } },
  "added product field currency": {
    fields: { product: { currency: { type: "string", required: false, maxLength: 3 } } },
  },
  "added contact type": { enums: { contactTypes: ["CLIENT", "SUPPLIER", "BOTH", "PARTNER"] } },
  "added fields of every type": {
    fields: {
      contact: { rank: { type: "number", required: true }, vip: { type: "boolean", required: false } },
      product: { weight: { type: "decimal", required: false, description: "Kilograms" } },
    },
  },
};

const documentOf = (variant: object): OpenApiDocument =>
  buildOpenApiDocument({ spec: applyVariant(variant) });
const copy = (d: OpenApiDocument): OpenApiDocument => JSON.parse(renderOpenApiJson(d)) as OpenApiDocument;
/** The document's JSON, for what it says wherever it says it. */
const text = (variant: object): string => renderOpenApiJson(documentOf(variant));

describe.each(Object.entries(VARIANTS))("the document of the variant %s", (_name, variant) => {
  it("is valid for @readme/openapi-parser and @seriousme/openapi-schema-validator", async () => {
    const readme = await readmeValidate(copy(documentOf(variant)) as Parameters<typeof readmeValidate>[0]);
    expect(readme.valid, readme.valid ? "" : compileErrors(readme)).toBe(true);
    const seriousme = await new SeriousmeValidator().validate(
      copy(documentOf(variant)) as unknown as Record<string, unknown>,
    );
    expect(seriousme.errors ?? [], JSON.stringify(seriousme.errors)).toEqual([]);
    expect(seriousme.valid).toBe(true);
  });

  it("compiles in Ajv's strict mode", () => {
    expect(new OpenApiValidator(documentOf(variant)).compileAll()).toBeGreaterThan(30);
  });
});

describe("what a variant's document says", () => {
  it("its page maximum, in the parameter and the description", () => {
    const d = text(VARIANTS["page max 500"]);
    expect(d).toContain('"maximum": 500');
    expect(d).toContain("read with `limit=500` where that matters");
    expect(d).not.toContain('"maximum": 200,\n');
  });

  it("its rate limit, in the description and the headers' examples", () => {
    const d = text(VARIANTS["60 requests a minute"]);
    expect(d).toContain("60 requests per rolling minute per token");
    expect(d).toContain('\\"per-token\\"; q=60; w=60');
  });

  it("its contact name maximum", () => {
    expect(text(VARIANTS["contact name max 100"])).toMatch(/"name": \{[^}]*"maxLength": 100/);
  });

  it("its duplicate-sku answer: 409 conflict on product creation only, and seven codes", () => {
    const d = documentOf(VARIANTS["duplicate sku 409 conflict"]);
    const responses = (path: string, method: "get" | "post") =>
      Object.keys((d.paths?.[path]?.[method]?.responses ?? {}) as object);
    expect(responses("/api/v1/products", "post")).toContain("409");
    expect(responses("/api/v1/contacts", "post")).not.toContain("409");
    expect(JSON.stringify(d)).toContain("409 conflict: a duplicate sku on product creation.");
    expect(d.info.description).toContain("with one of seven codes");
  });

  it("two codes of one status on one operation: either envelope", () => {
    const d = documentOf(VARIANTS["duplicate sku 400 duplicate_sku"]);
    const response = JSON.stringify(d.paths?.["/api/v1/products"]?.post?.responses?.["400"]);
    expect(response).toContain("400 invalid_request or duplicate_sku.");
    expect(response).toContain("anyOf");
  });

  it("its added fields: in the body, and in the served records", () => {
    const d = JSON.stringify(documentOf(VARIANTS["added fields of every type"]));
    expect(d).toMatch(/"rank":\{"type":"number"\}/);
    expect(d).toContain('"weight":{"type":"number","minimum":-999999999999.9999');
    expect(d).toContain('"weight":{"anyOf":[{"description":"Kilograms"');
    expect(d).toContain("Kilograms");
  });

  it("its enumerations", () => {
    expect(text(VARIANTS["added contact type"])).toContain('"PARTNER"');
  });
});
