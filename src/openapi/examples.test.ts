import request from "supertest";
import { describe, expect } from "vitest";
import { referenceTest } from "../test-support/reference.js";
import { OpenApiValidator } from "../test-support/openapi-validator.js";
import { buildOpenApiDocument } from "./document.js";

/**
 * What /docs's "Try it out" does with each operation, as a test: send the document's example (or no
 * body) with the token the docs page fills in, and get the status the document gives as the
 * operation's answer. The answer itself is judged by the document (the setup file does it for every
 * response); each answer example is judged here too.
 */

const document = buildOpenApiDocument();
const validator = new OpenApiValidator(document);
const it = referenceTest();

interface MediaType {
  example?: unknown;
}
interface Operation {
  operationId?: string;
  deprecated?: boolean;
  requestBody?: { content?: Record<string, MediaType> };
  responses?: Record<string, { content?: Record<string, MediaType> }>;
}

const operations = Object.entries(document.paths ?? {}).flatMap(([path, item]) =>
  (["get", "post"] as const).flatMap((method) => {
    const op = (item as Record<string, Operation | undefined>)[method];
    return op === undefined ? [] : [{ path, method, op, name: `${method.toUpperCase()} ${path}` }];
  }),
);

describe("the document's examples", () => {
  it("cover every operation that exists, and mark the announced ones deprecated", () => {
    expect(operations).toHaveLength(8);
    for (const { op, method } of operations) {
      const documented = Object.keys(op.responses ?? {}).filter((s) => s.startsWith("2"));
      if (op.deprecated === true) {
        expect(documented).toEqual([]);
        continue;
      }
      expect(documented).toHaveLength(1);
      const success = op.responses?.[documented[0] ?? ""]?.content?.["application/json"];
      expect(success?.example, op.operationId).toBeDefined();
      if (method === "post") expect(op.requestBody?.content?.["application/json"]?.example).toBeDefined();
    }
  });

  it.for(operations)(
    "$name: Try it out gets the documented answer",
    async ({ path, method, op }, { ref }) => {
      const body = op.requestBody?.content?.["application/json"]?.example;
      let call = request(ref.app)[method](path).set(ref.auth("lumiere-full"));
      if (body !== undefined) call = call.send(body as object);
      const res = await call;
      const expected =
        op.deprecated === true ? "404" : Object.keys(op.responses ?? {}).find((s) => s.startsWith("2"));
      expect(String(res.status), res.text).toBe(expected);
    },
  );

  it.each(operations.filter(({ op }) => op.deprecated !== true))(
    "$name: the answer's example is what the document describes",
    ({ path, method, op }) => {
      const [status, response] = Object.entries(op.responses ?? {}).find(([s]) => s.startsWith("2")) ?? [];
      const example = response?.content?.["application/json"]?.example;
      const text = JSON.stringify(example);
      const verdict = validator.checkResponse({
        method: method.toUpperCase(),
        path,
        status: Number(status),
        headers: {
          "content-type": "application/json; charset=utf-8",
          ratelimit: '"per-token"; r=99; t=60',
          "ratelimit-policy": '"per-token"; q=100; w=60',
        },
        text,
      });
      expect(verdict.ok ? [] : verdict.problems).toEqual([]);
    },
  );
});
