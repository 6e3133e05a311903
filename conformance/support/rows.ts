import type { Check, CheckContext, HttpExchange, HttpRequest } from "../types.js";
import { failureKey, routeOf } from "../failures.js";
import {
  answer,
  expectError,
  expectErrorEnvelope,
  expectStatus,
  fail,
  requestLine,
  type JsonObject,
} from "./assert.js";
import { validContact, validProduct } from "./data.js";
import type { ClauseRef } from "../spec/clauses.js";
import type { ErrorRole } from "../../spec/schema.js";
import { type Endpoint } from "../spec/kit-spec.js";
import { SECTION } from "../spec/clauses.js";

/**
 * The machinery of the simple clauses, written as rows: "send this request, expect this status and
 * code". Each area's file of checks/ holds its own rows; `ruleCheck` turns each into a check whose
 * failure names the request, the answer expected and the one given.
 */

/** What every request of a row must get. */
export type Expected =
  /** The spec's answer to this situation (errors.<role>): its status, and §7's error body with its code. */
  | { error: ErrorRole }
  /** This status and code, whatever the spec says (a custom catalogue's own rows). */
  | { status: number; code: string }
  /** No endpoint: 404 not_found, or 405 (spec-gaps #23), in §7's error body. */
  | "no endpoint"
  /** A refusal whose status the spec does not show: any 4xx, in §7's error body. */
  | "refused";

/** A check's identity (Check's own fields), and what it sends and expects. */
export interface RuleRow extends Pick<Check, "id" | "section" | "clause" | "level" | "rule" | "gap"> {
  writes?: boolean;
  /** The requests, each with what it is: a failure says "<what> must get <expected>". */
  requests(ctx: CheckContext): ReadonlyArray<{ what: string; request: HttpRequest }>;
  expect: Expected;
}

/** Judges one answer against a row's expectation. */
export function expectAnswer(ctx: CheckContext, ex: HttpExchange, expected: Expected, rule: string): void {
  const { notFound } = ctx.spec.ERRORS;
  if (expected === "no endpoint") {
    expectStatus(ex, [notFound.status, 405], rule);
    expectErrorEnvelope(ex, ex.status === notFound.status ? notFound.code : undefined, rule);
    return;
  }
  if (expected === "refused") {
    if (ex.status < 400 || ex.status >= 500) {
      fail(`${rule}: answered ${ex.status}`, {
        key: failureKey(`status ${ex.status}`, routeOf(ex.request, ctx.spec)),
        cause: ex.status >= 500 ? "response.no-5xx" : "rule",
        expected: "a 4xx refusal in the error envelope",
        actual: answer(ex),
        exchange: ex,
      });
    }
    expectErrorEnvelope(ex, undefined, rule);
    return;
  }
  const { status, code } = "error" in expected ? ctx.spec.ERRORS[expected.error] : expected;
  expectError(ex, status, code, rule);
}

function describeExpected(ctx: CheckContext, expected: Expected): string {
  const { notFound } = ctx.spec.ERRORS;
  if (expected === "no endpoint") return `${notFound.status} ${notFound.code} (or 405)`;
  if (expected === "refused") return "a refusal in the error envelope (404 and 405 are HTTP's)";
  const { status, code } = "error" in expected ? ctx.spec.ERRORS[expected.error] : expected;
  return `${status} ${code}`;
}

export function ruleCheck(row: RuleRow): Check {
  return {
    id: row.id,
    section: row.section,
    clause: row.clause,
    level: row.level,
    rule: row.rule,
    ...(row.gap === undefined ? {} : { gap: row.gap }),
    ...(row.writes === undefined ? {} : { writes: row.writes }),
    async run(ctx) {
      for (const { what, request } of row.requests(ctx)) {
        const ex = await ctx.http.send(request);
        expectAnswer(
          ctx,
          ex,
          row.expect,
          `${what} (${requestLine(request)}) must get ${describeExpected(ctx, row.expect)}`,
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
  const json =
    e.path === ctx.spec.LISTS.contacts.path ? validContact(ctx, "auth") : validProduct(ctx, "auth");
  return { method: "POST", path: e.path, auth, json };
}

/**
 * Every endpoint of §4, the POST rows left out under --read-only: a server that let the token
 * through would create a record.
 */
export function endpointsFor(ctx: CheckContext): readonly Endpoint[] {
  if (!ctx.options.readOnly) return ctx.spec.ENDPOINTS;
  ctx.observe(
    "read-only: POST rows left out",
    "POST rows left out: --read-only, and a server that let the token through would create a record.",
  );
  return ctx.spec.ENDPOINTS.filter((e) => e.method === "GET");
}

/** The same credentials on every endpoint. */
export const onEveryEndpoint =
  (credentials: (ctx: CheckContext) => Auth) =>
  (ctx: CheckContext): Array<{ what: string; request: HttpRequest }> => {
    const auth = credentials(ctx);
    return endpointsFor(ctx).map((e) => ({
      what: `${e.method} ${e.path}`,
      request: endpointRequest(ctx, e, auth),
    }));
  };

/** The answers rows expect most, by situation: their status and code are the run's spec's (§7). */
export const UNAUTHORIZED: Expected = { error: "unauthorized" };
export const FORBIDDEN: Expected = { error: "forbidden" };
export const INVALID: Expected = { error: "invalidRequest" };

/**
 * spec-gaps #29 (SHOULD): a record never modified has updatedAt equal to createdAt, on the run's
 * reference record of its kind as its list shows it.
 */
export const updatedAtCheck = (
  kind: "contact" | "product",
  clause: ClauseRef,
  listed: (ctx: CheckContext) => Promise<{ item: JsonObject; exchange: HttpExchange }>,
): Check => ({
  id: `${kind}s.updated-at`,
  section: SECTION.resources,
  clause,
  level: "SHOULD",
  rule: `A ${kind} never modified has updatedAt equal to createdAt`,
  gap: 29,
  writes: true,
  async run(ctx) {
    const { item, exchange } = await listed(ctx);
    if (item.updatedAt !== item.createdAt) {
      fail(`A ${kind} just created has an updatedAt other than its createdAt`, {
        key: "updatedAt is not createdAt",
        expected: `updatedAt ${JSON.stringify(item.createdAt)}`,
        actual: `updatedAt ${JSON.stringify(item.updatedAt)}`,
        exchange,
      });
    }
  },
});
