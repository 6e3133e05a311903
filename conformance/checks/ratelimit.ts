import type { ManifestToken } from "../manifest-schema.js";
import { failureKey } from "../failures.js";
import type { Check, CheckContext, HttpExchange } from "../types.js";
import { answer, expectError, fail, header, statusAndCode } from "../support/assert.js";
import { fullToken, listRequest, usableTokens } from "../support/data.js";
import type { Burst } from "../support/shared.js";
import { SECTION } from "../spec/clauses.js";

/**
 * §8: "100 requests per minute; beyond it, 429 rate_limited" (spec-gaps #21). These checks exhaust
 * the limit: the catalogue runs them in its final phase (checks/index.ts), the burst first.
 */

const ORIGIN = "https://ratelimit.conformance.example";

/** Requests in flight at once: enough to outrun a window on a slow client, few enough not to flood. */
const BATCH = 10;

/**
 * Unpaced requests with one token until a 429, at most 2 × limit + 1 (a fixed window may reset
 * mid-burst), sent BATCH at a time so that the burst outruns the window even when one request takes
 * several milliseconds. Stops at the first batch holding a 429 (or an answer neither 200 nor 429).
 */
async function exhaust(ctx: CheckContext, token: ManifestToken): Promise<Burst> {
  const max = 2 * ctx.options.rateLimit + 1;
  const request = { ...listRequest("contacts", token, { limit: "1" }), headers: { Origin: ORIGIN } };
  const started = ctx.clock.now();
  let first: HttpExchange | undefined;
  let sent = 0;
  while (sent < max) {
    const size = Math.min(BATCH, max - sent);
    const batch = await Promise.all(Array.from({ length: size }, () => ctx.http.sendUnpaced(request)));
    for (const ex of batch) {
      sent += 1;
      first ??= ex;
      const durationMs = ctx.clock.now() - started;
      if (ex.status === 429) return { sent, first, limited: ex, unexpected: undefined, durationMs };
      if (ex.status !== 200) return { sent, first, limited: undefined, unexpected: ex, durationMs };
    }
  }
  return { sent, first, limited: undefined, unexpected: undefined, durationMs: ctx.clock.now() - started };
}

/** A burst that met no 429 but outlasted a window proves nothing: a correct limit may have reset. */
function skipIfSlow(ctx: CheckContext, b: Burst): void {
  if (b.limited === undefined && b.unexpected === undefined && b.durationMs > ctx.options.rateWindowMs) {
    ctx.skip(`the burst took ${b.durationMs} ms, longer than the window: undecided`);
  }
}

const burst = (ctx: CheckContext): Promise<Burst> => {
  const token = fullToken(ctx);
  return ctx.shared.burst.get(() => exhaust(ctx, token));
};

const RATE_HEADER = /^(x-)?ratelimit|^retry-after$/;

function rateHeaders(ex: HttpExchange): string {
  const found = Object.entries(ex.headers).filter(([name]) => RATE_HEADER.test(name));
  return found.length === 0 ? "none" : found.map(([n, v]) => `${n}: ${v}`).join("; ");
}

/** The rate-limit headers' names only: their values count down from request to request. */
function rateHeaderNames(ex: HttpExchange): string {
  const names = Object.keys(ex.headers).filter((name) => RATE_HEADER.test(name));
  return names.length === 0 ? "none" : names.sort().join(", ");
}

/** Retry-After in ms (seconds or an HTTP date), or undefined when absent or unreadable. */
export function retryAfterMs(value: string | undefined, now: number): number | undefined {
  const v = value?.trim() ?? "";
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  return v === "" || Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

export const rateLimitChecks: readonly Check[] = [
  {
    id: "ratelimit.burst",
    section: SECTION.limits,
    clause: ["§8.1", "§7.8"],
    level: "MUST",
    rule: "A quick burst with one token meets 429 rate_limited within 2 × limit + 1 requests",
    gap: 21,
    async run(ctx) {
      const b = await burst(ctx);
      if (b.unexpected !== undefined) {
        fail(`The burst stopped on an answer that is neither 200 nor 429 (request ${b.sent})`, {
          key: failureKey("burst stopped", `status ${b.unexpected.status}`),
          cause: b.unexpected.status >= 500 ? "response.no-5xx" : "rule",
          expected: "200, then 429 rate_limited",
          actual: answer(b.unexpected),
          exchange: b.unexpected,
        });
      }
      skipIfSlow(ctx, b);
      if (b.limited === undefined) {
        fail(
          `${b.sent} requests in a burst (${b.durationMs} ms) never met a 429 (§8: ${ctx.options.rateLimit} per window)`,
          {
            key: "no 429 in the burst",
            expected: `429 rate_limited within ${b.sent} requests`,
            actual: `every answer 200 (first: ${b.first === undefined ? "none" : answer(b.first)})`,
            ...(b.first === undefined ? {} : { exchange: b.first }),
          },
        );
      }
      expectError(
        b.limited,
        429,
        "rate_limited",
        "Beyond the rate limit the answer must be 429 rate_limited (§7, §8)",
      );
      ctx.observe("429 met", `The burst met its first 429 at request ${b.sent}, after ${b.durationMs} ms.`);
    },
  },
  {
    id: "ratelimit.scope",
    section: SECTION.limits,
    clause: "§8.10",
    level: "PROBE",
    rule: "What the rate limit counts: the token, the organization, or the client address",
    gap: 21,
    async run(ctx) {
      const full = fullToken(ctx);
      // A second burst against a target that never limited the first would only add load.
      if ((await burst(ctx)).limited === undefined) ctx.skip("the burst check met no 429");
      const b = await exhaust(ctx, full);
      skipIfSlow(ctx, b);
      if (b.limited === undefined) ctx.skip("the token could not be brought to a 429");
      const sibling = usableTokens(ctx).find(
        (t) =>
          t.organization === full.organization &&
          t.label !== full.label &&
          t.scopes.includes("contacts:read"),
      );
      const otherOrg = ctx.tokens.find({ kind: "full", org: 1 });
      const probes: Array<[string, ManifestToken | null]> = [];
      if (sibling !== undefined) probes.push(["another token of the same organization", sibling]);
      if (otherOrg !== undefined) probes.push(["a token of another organization", otherOrg]);
      probes.push(["a request without a token", null]);
      const limited: string[] = [];
      for (const [what, token] of probes) {
        const ex = await ctx.http.sendUnpaced(listRequest("contacts", token, { limit: "1" }));
        if (ex.status === 429) limited.push(what);
        ctx.observe(
          `${what}: ${statusAndCode(ex)}`,
          `While one token is rate-limited, ${what} gets ${statusAndCode(ex)}.`,
        );
      }
      const reading =
        limited.length === 0
          ? "per token"
          : limited.length === probes.length
            ? "per client address (or globally)"
            : `shared with ${limited.join(" and ")}`;
      ctx.observe(`counted ${reading}`, `The rate limit reads as counted ${reading}.`);
    },
  },
  {
    id: "ratelimit.headers",
    section: SECTION.limits,
    clause: "§8.10",
    level: "PROBE",
    rule: "Which rate-limit headers the target sends (on success and on the 429)",
    gap: 21,
    async run(ctx) {
      const b = await burst(ctx);
      if (b.first !== undefined)
        ctx.observe(
          `on success: ${rateHeaderNames(b.first)}`,
          `A successful answer carries rate-limit headers: ${rateHeaders(b.first)}.`,
        );
      if (b.limited !== undefined) {
        const cors = header(b.limited, "access-control-allow-origin") === undefined ? "without" : "with";
        ctx.observe(
          `on 429: ${rateHeaderNames(b.limited)}; ${cors} Access-Control-Allow-Origin`,
          `The 429 carries: ${rateHeaders(b.limited)}; it comes ${cors} Access-Control-Allow-Origin.`,
        );
      }
    },
  },
  {
    id: "ratelimit.reference-headers",
    section: SECTION.limits,
    clause: "§8.10",
    level: "REFERENCE",
    rule: "Answers carry RateLimit and RateLimit-Policy (IETF draft); a 429 carries Retry-After",
    gap: 21,
    async run(ctx) {
      const b = await burst(ctx);
      const expectHeader = (ex: HttpExchange | undefined, name: string): void => {
        if (ex !== undefined && header(ex, name) === undefined) {
          fail(`The ${ex.status} answer lacks the ${name} header`, {
            key: failureKey(`no ${name} header`, `status ${ex.status}`),
            expected: `a ${name} header`,
            actual: rateHeaders(ex),
            exchange: ex,
          });
        }
      };
      expectHeader(b.first, "ratelimit");
      expectHeader(b.first, "ratelimit-policy");
      if (b.limited === undefined) ctx.skip("the burst met no 429 (ratelimit.burst reports it)");
      expectHeader(b.limited, "retry-after");
      expectHeader(b.limited, "ratelimit-policy");
    },
  },
  {
    id: "ratelimit.retry-after",
    section: SECTION.limits,
    clause: ["§8.1", "§8.10"],
    level: "MUST",
    rule: "Once rate-limited, waiting Retry-After (or one window without it) restores service",
    gap: 21,
    slow: true,
    async run(ctx) {
      const token = fullToken(ctx);
      const b = await exhaust(ctx, token);
      skipIfSlow(ctx, b);
      if (b.limited === undefined) {
        fail("The token could not be brought to a 429 to wait it out", {
          key: "no 429 to wait out",
          expected: "a 429",
          actual: b.unexpected === undefined ? `${b.sent} answers, none 429` : answer(b.unexpected),
          ...(b.unexpected === undefined ? {} : { exchange: b.unexpected }),
        });
      }
      const given = retryAfterMs(header(b.limited, "retry-after"), ctx.clock.now());
      const waitMs = given ?? ctx.options.rateWindowMs;
      if (waitMs > 300_000)
        ctx.skip(`Retry-After asks for ${Math.round(waitMs / 1000)} s, more than this check waits`);
      ctx.observe(
        given === undefined ? "waited one window: no Retry-After" : "waited Retry-After",
        `Waited ${Math.round(waitMs / 100) / 10} s (${given === undefined ? "one window: no Retry-After" : "Retry-After"}).`,
      );
      // Retry-After counts whole seconds; a quarter-second margin covers its rounding and the clocks.
      await ctx.clock.sleep(waitMs + 250);
      const ex = await ctx.http.sendUnpaced(listRequest("contacts", token, { limit: "1" }));
      if (ex.status !== 200) {
        fail("After waiting as told, the request is still refused", {
          key: failureKey("still refused after the wait", `status ${ex.status}`),
          expected: "200",
          actual: answer(ex),
          exchange: ex,
        });
      }
    },
  },
];
