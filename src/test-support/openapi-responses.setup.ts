import { appendFileSync } from "node:fs";
import { relative } from "node:path";
import request, { type Response } from "supertest";
import { afterAll, expect } from "vitest";
import { buildOpenApiDocument } from "../openapi/document.js";
import { OpenApiValidator } from "./openapi-validator.js";

/**
 * Every response the server's own HTTP tests receive through supertest is checked against the
 * OpenAPI document (Ajv, strict): status declared for the operation, media type, body and headers.
 * A response the document does not describe fails the test that received it, whatever that test
 * asserts. Wired as a vitest setup file, so the HTTP tests need no change.
 *
 * Judged: responses to requests under /api/ in the tests of src/. Not judged: CORS pre-flights
 * (OPTIONS is not an operation of the document) and the conformance kit's own tests, which run
 * deliberately broken servers. OPENAPI_RESPONSES_LOG=<file> appends one JSON line per test file with
 * the counts.
 */

let validator: OpenApiValidator | undefined;
/** Built on the first response judged: most test files never send one. */
const judge = (): OpenApiValidator => (validator ??= new OpenApiValidator(buildOpenApiDocument()));
const counts = { validated: 0, preflights: 0, byStatus: {} as Record<string, number> };

type Callback = (err: Error | null, res: Response) => void;
interface PatchedTest {
  method: string;
  url: string;
  assert(resError: Error | null, res: Response | undefined, fn: Callback): void;
}

const inSrc = (): boolean => {
  const testPath = expect.getState().testPath;
  return testPath !== undefined && relative(process.cwd(), testPath).startsWith("src/");
};

const proto = request.Test.prototype as unknown as PatchedTest;
const original = proto.assert;
proto.assert = function (this: PatchedTest, resError, res, fn) {
  const path = new URL(this.url).pathname;
  if (res !== undefined && path.startsWith("/api/") && inSrc()) {
    if (this.method === "OPTIONS") {
      counts.preflights += 1;
    } else {
      counts.validated += 1;
      counts.byStatus[res.status] = (counts.byStatus[res.status] ?? 0) + 1;
      const verdict = judge().checkResponse({
        method: this.method,
        path,
        status: res.status,
        headers: res.headers as Record<string, string | string[] | undefined>,
        text: typeof res.text === "string" ? res.text : "",
      });
      if (!verdict.ok) {
        fn(
          new Error(
            `openapi.json does not describe the response to ${this.method} ${path} (${res.status}):\n- ${verdict.problems.join("\n- ")}`,
          ),
          res,
        );
        return;
      }
    }
  }
  original.call(this, resError, res, fn);
};

afterAll(() => {
  const log = process.env.OPENAPI_RESPONSES_LOG;
  const file = expect.getState().testPath;
  if (log !== undefined && file !== undefined && counts.validated + counts.preflights > 0) {
    appendFileSync(log, `${JSON.stringify({ file: relative(process.cwd(), file), ...counts })}\n`);
  }
});
