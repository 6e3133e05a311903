import { failureKey, routeOf } from "../failures.js";
import type { Check, CheckContext, HttpExchange } from "../types.js";
import {
  answer,
  expectAllowsOrigin,
  expectStatus,
  expectSuccess,
  fail,
  header,
  headerList,
  is2xx,
  requestLine,
} from "../support/assert.js";
import { fullToken, listRequest } from "../support/data.js";
import { onceSlot } from "../support/shared.js";
import { SECTION } from "../spec/clauses.js";

/**
 * §4 "CORS is supported": any origin; methods GET, POST, PUT, PATCH, DELETE, OPTIONS; headers
 * Authorization and Content-Type (spec-gaps #22). `*` and an echo of the Origin both allow any origin.
 */

const origin = (ctx: CheckContext): string => `https://${ctx.marker}.conformance.example`;

const preflight = (ctx: CheckContext, path: string, method: string): Promise<HttpExchange> =>
  ctx.http.send({
    method: "OPTIONS",
    path,
    auth: null,
    headers: {
      Origin: origin(ctx),
      "Access-Control-Request-Method": method,
      "Access-Control-Request-Headers": ctx.spec.CORS_HEADERS.join(", "),
    },
  });

/** cors.errors and cors.reference-errors: error answers to a request from another origin. */
const ERROR_ANSWERS = onceSlot<readonly HttpExchange[]>("error answers from another origin");

/** Error answers sent from a page of another origin: what a browser script would need to read. */
function errorAnswers(ctx: CheckContext): Promise<readonly HttpExchange[]> {
  const headers = { Origin: origin(ctx) };
  const noScope = ctx.tokens.find({ kind: "no-scope" });
  const full = fullToken(ctx);
  return ctx.shared.get(ERROR_ANSWERS).get(async () => [
    await ctx.http.send({ ...listRequest(ctx, "contacts", null), headers }),
    ...(noScope === undefined
      ? []
      : [await ctx.http.send({ ...listRequest(ctx, "contacts", noScope), headers })]),
    await ctx.http.send({ method: "GET", path: `/api/v1/${ctx.marker}-nowhere`, auth: full, headers }),
    await ctx.http.send({
      method: "POST",
      path: ctx.spec.LISTS.contacts.path,
      auth: full,
      headers: { ...headers, "Content-Type": "application/json" },
      rawBody: "{",
    }),
  ]);
}

async function expectCorsOnErrors(ctx: CheckContext, rule: string): Promise<void> {
  for (const ex of await errorAnswers(ctx)) {
    if (ex.status < 400) {
      fail(`${rule}: ${requestLine(ex.request)} was expected to fail`, {
        key: failureKey(`status ${ex.status}`, routeOf(ex.request, ctx.spec)),
        expected: "an error status",
        actual: answer(ex),
        exchange: ex,
      });
    }
    expectAllowsOrigin(ex, origin(ctx), rule);
  }
}

export const corsChecks: readonly Check[] = [
  {
    id: "cors.preflight",
    section: SECTION.endpoints,
    clause: "§4.4",
    level: "MUST",
    rule: "A pre-flight (OPTIONS) is answered 2xx, allowing any origin, §4's methods and the Authorization and Content-Type headers",
    gap: 22,
    async run(ctx) {
      for (const list of ["contacts", "products", "invoices", "expenses"] as const) {
        const path = ctx.spec.LISTS[list].path;
        const ex = await preflight(ctx, path, list === "contacts" || list === "products" ? "POST" : "GET");
        const rule = `The pre-flight of ${path} must allow the request (§4 CORS)`;
        expectSuccess(ex, rule);
        expectAllowsOrigin(ex, origin(ctx), rule);
        const headers = headerList(ex, "access-control-allow-headers");
        // A wildcard does not cover Authorization (Fetch standard): it must be named.
        const missingHeaders = ctx.spec.CORS_HEADERS.filter(
          (h) => !headers.has(h) && !(h !== "authorization" && headers.has("*")),
        );
        if (missingHeaders.length > 0) {
          fail(`${rule}: request headers not allowed`, {
            key: failureKey("headers not allowed", missingHeaders.join(", "), path),
            expected: "Access-Control-Allow-Headers naming Authorization and Content-Type",
            actual: `Access-Control-Allow-Headers: ${header(ex, "access-control-allow-headers") ?? "(none)"}`,
            exchange: ex,
          });
        }
        const methods = headerList(ex, "access-control-allow-methods");
        for (const method of ctx.spec.CORS_METHODS) {
          if (methods.has(method.toLowerCase()) || methods.has("*")) continue;
          // A server may list only the method asked for: ask for this one.
          const asked = await preflight(ctx, path, method);
          const echoed = headerList(asked, "access-control-allow-methods");
          if (!(is2xx(asked) && (echoed.has(method.toLowerCase()) || echoed.has("*")))) {
            fail(`${rule}: ${method} is not allowed`, {
              key: failureKey(`${method} not allowed`, path),
              expected: `Access-Control-Allow-Methods including ${method} (§4: ${ctx.spec.CORS_METHODS.join(", ")})`,
              actual: `${asked.status}, Access-Control-Allow-Methods: ${header(asked, "access-control-allow-methods") ?? "(none)"}`,
              exchange: asked,
            });
          }
        }
      }
    },
  },
  {
    id: "cors.success",
    section: SECTION.endpoints,
    clause: "§4.4",
    level: "MUST",
    rule: "Successful answers to a cross-origin request allow the origin (Access-Control-Allow-Origin)",
    gap: 22,
    async run(ctx) {
      const token = fullToken(ctx);
      for (const list of ["contacts", "invoices"] as const) {
        const ex = await ctx.http.send({
          ...listRequest(ctx, list, token, { limit: "1" }),
          headers: { Origin: origin(ctx) },
        });
        expectStatus(ex, 200, `GET ${ctx.spec.LISTS[list].path} must answer 200`);
        expectAllowsOrigin(ex, origin(ctx), "A successful answer must be readable from any origin (§4 CORS)");
      }
    },
  },
  {
    id: "cors.errors",
    section: SECTION.endpoints,
    clause: "§4.4",
    level: "MUST",
    rule: "Error answers (401, 403, 404, 400) to a cross-origin request allow the origin: §4's CORS sentence makes no exception for errors, and a browser cannot read why a request failed without it (429s and any 5xx: run.cors-errors)",
    gap: 22,
    async run(ctx) {
      await expectCorsOnErrors(ctx, "An error answer must be readable from any origin (§4 CORS)");
    },
  },
  {
    id: "cors.reference-errors",
    section: SECTION.endpoints,
    clause: "§4.4",
    level: "REFERENCE",
    rule: "Every error answer carries the CORS headers",
    gap: 22,
    async run(ctx) {
      await expectCorsOnErrors(ctx, "Every error answer must carry Access-Control-Allow-Origin");
    },
  },
];
