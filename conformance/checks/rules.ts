import type { Check, CheckContext, HttpExchange, HttpRequest, Level } from "../types.js";
import { expectError, expectErrorEnvelope, expectStatus, requestLine } from "./assert.js";
import { fullToken, unique, validContact, validProduct } from "./data.js";
import { ENDPOINTS, LISTS, SECTION, type Endpoint } from "./spec.js";

/**
 * The simple clauses of the spec, as rows: "send this request, expect this status and code". Adding
 * a clause is adding a row; `ruleCheck` turns each into a check whose failure names the request, the
 * answer expected and the one given.
 */

/** What every request of a row must get. */
export type Expected =
  /** This status, and §7's error body with this code. */
  | { status: number; code: string }
  /** No endpoint: 404 not_found, or 405 (spec-gaps #23), in §7's error body. */
  | "no endpoint";

export interface RuleRow {
  id: string;
  section: string;
  level: Level;
  rule: string;
  gap?: number;
  writes?: boolean;
  /** The requests, each with what it is: a failure says "<what> must get <expected>". */
  requests(ctx: CheckContext): ReadonlyArray<{ what: string; request: HttpRequest }>;
  expect: Expected;
}

/** Judges one answer against a row's expectation. */
export function expectAnswer(ex: HttpExchange, expected: Expected, rule: string): void {
  if (expected === "no endpoint") {
    expectStatus(ex, [404, 405], rule);
    expectErrorEnvelope(ex, ex.status === 404 ? "not_found" : undefined, rule);
    return;
  }
  expectError(ex, expected.status, expected.code, rule);
}

const describeExpected = (expected: Expected): string =>
  expected === "no endpoint" ? "404 not_found (or 405)" : `${expected.status} ${expected.code}`;

export function ruleCheck(row: RuleRow): Check {
  return {
    id: row.id,
    section: row.section,
    level: row.level,
    rule: row.rule,
    ...(row.gap === undefined ? {} : { gap: row.gap }),
    ...(row.writes === undefined ? {} : { writes: row.writes }),
    async run(ctx) {
      for (const { what, request } of row.requests(ctx)) {
        const ex = await ctx.http.send(request);
        expectAnswer(
          ex,
          row.expect,
          `${what} (${requestLine(request)}) must get ${describeExpected(row.expect)}`,
        );
      }
    },
  };
}

// ---- the requests rows are made of ----------------------------------------------------------------------

type Auth = HttpRequest["auth"];

/** A request to an endpoint of §4 that any implementation would answer 2xx with a full token. */
export function endpointRequest(ctx: CheckContext, e: Endpoint, auth: Auth): HttpRequest {
  if (e.method === "GET") return { method: "GET", path: e.path, query: { limit: "1" }, auth };
  const json = e.path === LISTS.contacts.path ? validContact(ctx, "auth") : validProduct(ctx, "auth");
  return { method: "POST", path: e.path, auth, json };
}

/**
 * Every endpoint of §4, the POST rows left out under --read-only: a server that let the token
 * through would create a record.
 */
export function endpointsFor(ctx: CheckContext): readonly Endpoint[] {
  if (!ctx.options.readOnly) return ENDPOINTS;
  ctx.observe(
    "POST rows left out: --read-only, and a server that let the token through would create a record.",
  );
  return ENDPOINTS.filter((e) => e.method === "GET");
}

/** The same credentials on every endpoint. */
const onEveryEndpoint =
  (credentials: (ctx: CheckContext) => Auth) =>
  (ctx: CheckContext): Array<{ what: string; request: HttpRequest }> => {
    const auth = credentials(ctx);
    return endpointsFor(ctx).map((e) => ({
      what: `${e.method} ${e.path}`,
      request: endpointRequest(ctx, e, auth),
    }));
  };

const JSON_TYPE = { "Content-Type": "application/json" };

const rawContact = (ctx: CheckContext, what: string, rawBody: string) => ({
  what,
  request: {
    method: "POST",
    path: LISTS.contacts.path,
    auth: fullToken(ctx),
    headers: JSON_TYPE,
    rawBody,
  },
});

const product = (ctx: CheckContext, what: string, unitPrice: unknown) => ({
  what,
  request: {
    method: "POST",
    path: LISTS.products.path,
    auth: fullToken(ctx),
    json: { sku: unique(ctx, "rule"), name: `${ctx.marker} ${what}`, unitPrice },
  },
});

const UNAUTHORIZED = { status: 401, code: "unauthorized" };
const FORBIDDEN = { status: 403, code: "forbidden" };
const INVALID = { status: 400, code: "invalid_request" };

// ---- the rows --------------------------------------------------------------------------------------------

export const RULE_ROWS: readonly RuleRow[] = [
  {
    id: "auth.revoked-token",
    section: SECTION.states,
    level: "MUST",
    rule: "A revoked token gets 401 unauthorized on every endpoint",
    requests: onEveryEndpoint((ctx) => ctx.tokens.get({ kind: "revoked" })),
    expect: UNAUTHORIZED,
  },
  {
    id: "auth.expired-token",
    section: SECTION.states,
    level: "MUST",
    rule: "An expired token gets 401 unauthorized on every endpoint",
    gap: 27,
    requests: onEveryEndpoint((ctx) => ctx.tokens.get({ kind: "expired" })),
    expect: UNAUTHORIZED,
  },
  {
    id: "auth.missing-token",
    section: SECTION.auth,
    level: "MUST",
    rule: "A request without an Authorization header gets 401 unauthorized on every endpoint",
    requests: onEveryEndpoint(() => null),
    expect: UNAUTHORIZED,
  },
  {
    id: "auth.plan",
    section: SECTION.auth,
    level: "MUST",
    rule: "A token of an organization whose plan has no API access gets 403 forbidden on every endpoint",
    gap: 25,
    requests: onEveryEndpoint((ctx) => ctx.tokens.get({ kind: "no-api-plan" })),
    expect: FORBIDDEN,
  },
  {
    id: "errors.unknown-paths",
    section: SECTION.errors,
    level: "MUST",
    rule: "A path that is no endpoint gets 404 not_found (or 405) in the error envelope",
    gap: 23,
    requests: (ctx) => [
      {
        what: "An unknown path",
        request: { method: "GET", path: `/api/v1/${ctx.marker}-nowhere`, auth: fullToken(ctx) },
      },
      {
        what: "A path below an endpoint",
        request: { method: "GET", path: `${LISTS.contacts.path}/${ctx.marker}/deeper`, auth: fullToken(ctx) },
      },
      {
        what: "A POST to an unknown path",
        request: { method: "POST", path: `/api/v1/${ctx.marker}-nowhere`, auth: fullToken(ctx), json: {} },
      },
    ],
    expect: "no endpoint",
  },
  {
    id: "errors.other-methods",
    section: SECTION.endpoints,
    level: "MUST",
    rule: "PUT, PATCH and DELETE, which have no endpoint, get 404 or 405 in the error envelope",
    gap: 23,
    requests: (ctx) => {
      const token = fullToken(ctx);
      const absent = `${ctx.marker}-absent`;
      const to = (method: string, path: string): { what: string; request: HttpRequest } => ({
        what: `${method} without an endpoint`,
        // DELETE only on an id that does not exist: never risk a collection on a server that has one.
        request: { method, path, auth: token, ...(method === "DELETE" ? {} : { json: {} }) },
      });
      return [
        ...["PUT", "PATCH"].flatMap((m) => [to(m, LISTS.contacts.path), to(m, LISTS.products.path)]),
        ...["PUT", "PATCH", "DELETE"].flatMap((m) => [
          to(m, `${LISTS.contacts.path}/${absent}`),
          to(m, `${LISTS.products.path}/${absent}`),
        ]),
        to("DELETE", `${LISTS.invoices.path}/${absent}`),
        to("DELETE", `${LISTS.expenses.path}/${absent}`),
      ];
    },
    expect: "no endpoint",
  },
  {
    id: "versioning.unversioned-path",
    section: SECTION.versioning,
    level: "MUST",
    rule: "A path without the version (/api/contacts) is no endpoint: 404 not_found (or 405) in the error envelope",
    gap: 23,
    requests: (ctx) => [
      {
        what: "A path without /v1 (every endpoint starts with /api/v1, §9)",
        request: { method: "GET", path: "/api/contacts", auth: fullToken(ctx) },
      },
    ],
    expect: "no endpoint",
  },
  {
    id: "errors.malformed-json",
    section: SECTION.errors,
    level: "MUST",
    rule: "A POST body that is not well-formed JSON gets 400 invalid_request",
    gap: 14,
    requests: (ctx) => [
      rawContact(ctx, "Truncated JSON", '{"type": "CLIENT", "name": '),
      rawContact(ctx, "JSON with single quotes", "{'type': 'CLIENT', 'name': 'x'}"),
      rawContact(ctx, "JSON with a trailing comma", '{"type": "CLIENT", "name": "x",}'),
      rawContact(ctx, "An empty body", ""),
      {
        what: "Truncated JSON to products",
        request: {
          method: "POST",
          path: LISTS.products.path,
          auth: fullToken(ctx),
          headers: JSON_TYPE,
          rawBody: '{"sku": ',
        },
      },
    ],
    expect: INVALID,
  },
  {
    id: "errors.non-object-json",
    section: SECTION.errors,
    level: "MUST",
    rule: "A POST body that is JSON but not an object ([], a string, null, a number) gets 400 invalid_request",
    gap: 14,
    requests: (ctx) =>
      ["[]", '"CLIENT"', "null", "42"].map((body) => rawContact(ctx, `The body ${body}`, body)),
    expect: INVALID,
  },
  {
    id: "products.unit-price-negative",
    section: SECTION.limits,
    level: "MUST",
    rule: "A negative unitPrice gets 400 invalid_request",
    gap: 19,
    requests: (ctx) =>
      [-0.01, -1, -1000.5].map((price) => product(ctx, `unitPrice ${price} (§8: >= 0)`, price)),
    expect: INVALID,
  },
  {
    id: "products.unit-price-string",
    section: SECTION.endpoints,
    level: "SHOULD",
    rule: 'A unitPrice sent as a string ("12.50") gets 400 invalid_request: §4 says number',
    gap: 19,
    requests: (ctx) => [product(ctx, 'unitPrice "12.50" (a string)', "12.50")],
    expect: INVALID,
  },
];

export const ruleChecks: readonly Check[] = RULE_ROWS.map(ruleCheck);
