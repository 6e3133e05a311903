import { kitSpec } from "../spec/kit-spec.js";
import { describe, expect, it } from "vitest";
import { nth, testManifest } from "../test-support/local.js";
import {
  CheckFailure,
  sharedStore,
  systemKitClock,
  type CheckContext,
  type HttpExchange,
  type HttpRequest,
} from "../types.js";
import { expectAnswer, INVALID, ruleCheck, type RuleRow } from "./rows.js";

const answerOf = (
  status: number,
  json: unknown,
  request: HttpRequest = { method: "GET", path: "/x" },
): HttpExchange => ({
  request,
  status,
  headers: { "content-type": "application/json" },
  text: JSON.stringify(json),
  json,
  curl: "curl x",
});

const error = (code: string) => ({ error: { code, message: "m" } });

/** A context whose target answers every request with `answer`; the requests sent are kept. */
function contextAnswering(answer: (r: HttpRequest) => HttpExchange): {
  ctx: CheckContext;
  sent: HttpRequest[];
} {
  const sent: HttpRequest[] = [];
  const manifest = testManifest();
  const ctx: CheckContext = {
    spec: kitSpec(),
    http: {
      send: (r) => {
        sent.push(r);
        return Promise.resolve(answer(r));
      },
      sendUnpaced: () => Promise.reject(new Error("not here")),
      history: () => [],
    },
    tokens: {
      manifest,
      find: () => nth(manifest.tokens, 0),
      get: () => nth(manifest.tokens, 0),
    },
    options: {
      profile: "spec",
      strict: false,
      readOnly: false,
      seed: 1,
      numRuns: 1,
      rateLimit: 100,
      rateLimitPer: "token",
      rateWindowMs: 60_000,
    },
    marker: "cfk-test",
    skip: (reason) => {
      throw new Error(reason);
    },
    observe: () => undefined,
    shared: sharedStore(),
    clock: systemKitClock,
  };
  return { ctx, sent };
}

describe("rule rows", () => {
  it("become checks carrying the row's id, section, level, rule and flags", () => {
    const row: RuleRow = {
      id: "example.row",
      section: "§7 Errors",
      clause: "§7.4",
      level: "SHOULD",
      rule: "A row",
      gap: 14,
      writes: true,
      requests: () => [],
      expect: INVALID,
    };
    expect(ruleCheck(row)).toMatchObject({
      id: "example.row",
      section: "§7 Errors",
      clause: "§7.4",
      level: "SHOULD",
      rule: "A row",
      gap: 14,
      writes: true,
    });
  });

  it("make adding a clause one entry: a row sends its requests and passes when each gets the status and code", async () => {
    const row: RuleRow = {
      id: "example.teapot",
      section: "§7 Errors",
      clause: "§7.4",
      level: "MUST",
      rule: "A teapot gets 418 teapot",
      requests: () => [
        { what: "The first", request: { method: "GET", path: "/one" } },
        { what: "The second", request: { method: "GET", path: "/two" } },
      ],
      expect: { status: 418, code: "teapot" },
    };
    const { ctx, sent } = contextAnswering((r) => answerOf(418, error("teapot"), r));
    await ruleCheck(row).run(ctx);
    expect(sent.map((r) => r.path)).toEqual(["/one", "/two"]);
  });

  it("fail naming the request, the answer expected and the answer given", async () => {
    const row: RuleRow = {
      id: "example.negative-price",
      section: "§8 Limits",
      clause: "§8.1",
      level: "MUST",
      rule: "A negative unitPrice gets 400 invalid_request",
      requests: () => [
        {
          what: "unitPrice -0.01 (§8: >= 0)",
          request: { method: "POST", path: "/api/v1/products", json: { unitPrice: -0.01 } },
        },
      ],
      expect: INVALID,
    };
    const { ctx } = contextAnswering((r) => answerOf(201, { data: {} }, r));
    const failure = await ruleCheck(row)
      .run(ctx)
      .catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(CheckFailure);
    expect((failure as CheckFailure).message).toMatch(
      /^unitPrice -0\.01 \(§8: >= 0\) \(POST \/api\/v1\/products\) must get 400 invalid_request/,
    );
    expect((failure as CheckFailure).expected).toBe("status 400");
  });

  it('read "no endpoint" as 404 not_found or 405, always in the error envelope', () => {
    const { ctx } = contextAnswering((r) => answerOf(200, {}, r));
    expect(() => expectAnswer(ctx, answerOf(404, error("not_found")), "no endpoint", "r")).not.toThrow();
    expect(() =>
      expectAnswer(ctx, answerOf(405, error("method_not_allowed")), "no endpoint", "r"),
    ).not.toThrow();
    expect(() => expectAnswer(ctx, answerOf(404, error("missing")), "no endpoint", "r")).toThrow(
      CheckFailure,
    );
    expect(() => expectAnswer(ctx, answerOf(404, { message: "no" }), "no endpoint", "r")).toThrow(
      CheckFailure,
    );
    expect(() => expectAnswer(ctx, answerOf(200, { data: [] }), "no endpoint", "r")).toThrow(CheckFailure);
  });
});
