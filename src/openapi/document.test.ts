import { validate as readmeValidate, compileErrors } from "@readme/openapi-parser";
import { Validator as SeriousmeValidator } from "@seriousme/openapi-schema-validator";
import { describe, expect, it } from "vitest";
import { SCOPES } from "../model/records.js";
import { ENDPOINTS, describeEndpoint } from "../test-support/reference.js";
import { committedText, renderArtifacts } from "../test-support/openapi-artifacts.js";
import { OpenApiValidator } from "../test-support/openapi-validator.js";
import { buildOpenApiDocument, renderOpenApiJson, SECURITY_SCHEME } from "./document.js";

const document = buildOpenApiDocument();
/** A fresh copy for each tool: some of them dereference the document in place. */
const copy = (): typeof document => JSON.parse(renderOpenApiJson(document)) as typeof document;

describe("the committed files", () => {
  it("openapi.json and the client types are what `npm run openapi` generates from the schemas", async () => {
    for (const { path, text } of await renderArtifacts(document)) {
      expect(await committedText(path), `${path} is stale: run npm run openapi`).toBe(text);
    }
  });

  it("generates the same document twice (no ids, dates or order from the run)", () => {
    expect(renderOpenApiJson(buildOpenApiDocument())).toBe(renderOpenApiJson(document));
  });
});

describe("validators we did not write", () => {
  it("@readme/openapi-parser finds the document valid", async () => {
    const result = await readmeValidate(copy() as Parameters<typeof readmeValidate>[0]);
    expect(result.valid, result.valid ? "" : compileErrors(result)).toBe(true);
    expect(result.specification).toBe("OpenAPI");
  });

  it("@seriousme/openapi-schema-validator finds the document valid against the OpenAPI 3.1 schema", async () => {
    const validator = new SeriousmeValidator();
    const result = await validator.validate(copy() as unknown as Record<string, unknown>);
    expect(result.errors ?? [], JSON.stringify(result.errors)).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe("3.1");
  });

  it("Ajv compiles every schema of every operation in strict JSON Schema 2020-12 mode", () => {
    expect(new OpenApiValidator(document).compileAll()).toBeGreaterThan(30);
  });
});

describe("what the document says", () => {
  const validator = new OpenApiValidator(document);

  it.each(ENDPOINTS.map((e) => [describeEndpoint(e), e] as const))(
    "%s is there with its scope in the security requirement, the description and x-scopes",
    (_name, e) => {
      const op = validator.operation(e.method, e.path);
      expect(op).toBeDefined();
      expect(op?.security).toEqual([{ [SECURITY_SCHEME]: [e.scope] }]);
      expect(op?.["x-scopes"]).toEqual([e.scope]);
      expect(op?.description).toContain(e.scope);
    },
  );

  it("lists the two announced creations as not available, answering 404", () => {
    for (const path of ["/api/v1/invoices", "/api/v1/expenses"]) {
      const op = validator.operation("post", path);
      expect(op?.["x-not-available"]).toBe(true);
      expect(Object.keys(op?.responses ?? {})).toContain("404");
      expect(op?.requestBody).toBeUndefined();
    }
  });

  it("names only the scopes of §5", () => {
    const named = [...validator.operations()].flatMap(([, , op]) => op["x-scopes"] as string[]);
    for (const scope of named) expect(SCOPES).toContain(scope);
  });

  it("declares 401, 403, 429 and 500 on every operation, 400 where a query or body is read", () => {
    for (const [path, method, op] of validator.operations()) {
      const statuses = Object.keys(op.responses ?? {});
      expect(statuses, `${method} ${path}`).toEqual(expect.arrayContaining(["401", "403", "429", "500"]));
      if (op.parameters !== undefined || op.requestBody !== undefined) expect(statuses).toContain("400");
    }
  });

  it("describes limit as an integer from 1 to 200, default 50, and the filters by their enums", () => {
    const params = validator.operation("get", "/api/v1/invoices")?.parameters ?? [];
    expect(params).toContainEqual(
      expect.objectContaining({
        name: "limit",
        schema: expect.objectContaining({ type: "integer", minimum: 1, maximum: 200, default: 50 }),
      }),
    );
    expect(params).toContainEqual(
      expect.objectContaining({
        name: "status",
        schema: { type: "string", enum: ["DRAFT", "SENT", "PAID", "OVERDUE", "VOIDED"] },
      }),
    );
  });
});
