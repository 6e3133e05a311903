import type { ManifestToken } from "../manifest-schema.js";
import { failureKey } from "../failures.js";
import type { Check, CheckContext, HttpExchange, HttpRequest } from "../types.js";
import { answer, expectError, fail, header, statusAndCode } from "../support/assert.js";
import { fullToken, leastUsed, listRequest, usableTokens } from "../support/data.js";
import { onceSlot, valueSlot } from "../support/shared.js";
import { SECTION } from "../spec/clauses.js";

/**
 * §8: "100 requests per minute; beyond it, 429 rate_limited" (spec-gaps #21). These checks exhaust
 * the limit: the catalogue runs them in its final phase (checks/index.ts), the burst first.
 */

const ORIGIN = "https://ratelimit.conformance.example";

interface Burst {
  /** Requests sent up to the 429 (included), or in all when none came. */
  sent: number;
  first: HttpExchange | undefined;
  /** The 429, if one came. */
  limited: HttpExchange | undefined;
  /** An answer that was neither 200 nor 429: the burst stopped on it. */
  unexpected: HttpExchange | undefined;
  /** From the first request sent to the last answer read. */
  durationMs: number;
}

/** The rate-limit burst the final phase's checks read. */
const BURST = onceSlot<Burst>("the burst");
/** The burst of refused requests (ratelimit.counts-failures), with a token of its own. */
const FAILURE_BURST = onceSlot<Burst>("the burst of refused requests");
/** What the rate limit reads as counting (ratelimit.scope), once it could be told. */
const RATE_SCOPE = valueSlot<{ scope?: "token" | "organization" | "address" | undefined }>(
  "the rate limit's scope",
  () => ({}),
);

/** Requests in flight at once: enough to outrun a window on a slow client, few enough not to flood. */
const BATCH = 10;

/** What a burst sends (its n-th request), and which answers other than 429 it expects. */
interface BurstPlan {
  request: (n: number) => HttpRequest;
  expected: (status: number) => boolean;
}

/** The plain burst: one successful read, again and again. */
const successes = (token: ManifestToken): BurstPlan => ({
  request: () => ({ ...listRequest("contacts", token, { limit: "1" }), headers: { Origin: ORIGIN } }),
  expected: (status) => status === 200,
});

/**
 * Requests a valid token makes and the target refuses (400 for limit=0, 404 for a path that is no
 * endpoint; a target may clamp the limit instead): each counts toward §8's limit all the same.
 */
const refusals = (ctx: CheckContext, token: ManifestToken): BurstPlan => ({
  request: (n) =>
    n % 2 === 0
      ? { ...listRequest("contacts", token, { limit: "0" }), headers: { Origin: ORIGIN } }
      : { method: "GET", path: `/api/v1/${ctx.marker}-nowhere`, auth: token, headers: { Origin: ORIGIN } },
  expected: (status) => status < 500,
});

/**
 * Unpaced requests with one token until a 429, at most 2 × limit + 1 (a fixed window may reset
 * mid-burst), sent BATCH at a time so that the burst outruns the window even when one request takes
 * several milliseconds. Stops at the first batch holding a 429 (or an answer the plan does not expect).
 */
async function exhaust(ctx: CheckContext, plan: BurstPlan): Promise<Burst> {
  const max = 2 * ctx.options.rateLimit + 1;
  const started = ctx.clock.now();
  let first: HttpExchange | undefined;
  let sent = 0;
  while (sent < max) {
    const size = Math.min(BATCH, max - sent);
    const batch = await Promise.all(
      Array.from({ length: size }, (_, i) => ctx.http.sendUnpaced(plan.request(sent + i))),
    );
    for (const ex of batch) {
      sent += 1;
      first ??= ex;
      const durationMs = ctx.clock.now() - started;
      if (ex.status === 429) return { sent, first, limited: ex, unexpected: undefined, durationMs };
      if (!plan.expected(ex.status)) return { sent, first, limited: undefined, unexpected: ex, durationMs };
    }
  }
  return { sent, first, limited: undefined, unexpected: undefined, durationMs: ctx.clock.now() - started };
}

/**
 * The tokens the final phase spends: the burst's (organization 0's full token), and for the burst of
 * refused requests the one of its organization that sent the fewest requests lately (else of the
 * manifest), so that neither burst starts on a budget the other used when the target counts per token.
 */
function rateTokens(ctx: CheckContext): { burst: ManifestToken; refusals: ManifestToken | undefined } {
  const burst = fullToken(ctx);
  const others = usableTokens(ctx).filter((t) => t.label !== burst.label);
  const mine = others.filter((t) => t.organization === burst.organization);
  return { burst, refusals: leastUsed(ctx, mine) ?? leastUsed(ctx, others) };
}

/**
 * The spare token holding contacts:read that sent the fewest requests in the last window: a limit
 * shared with the burst's token shows on it, and nothing else does. A token lacking the scope would
 * say nothing: a target may judge the scope before the limit.
 */
const probeToken = (ctx: CheckContext, candidates: readonly ManifestToken[]): ManifestToken | undefined =>
  leastUsed(
    ctx,
    candidates.filter((t) => t.scopes.includes("contacts:read")),
  );

/**
 * §8: the burst met 429 rate_limited, having met no answer its plan did not expect on the way (a
 * burst that outlasted a window without a 429 proves nothing: skipped).
 */
function expectLimited(
  ctx: CheckContext,
  b: Burst,
  says: { what: string; expected: string; key: string; why: string },
): asserts b is Burst & { limited: HttpExchange } {
  if (b.unexpected !== undefined) {
    fail(`The burst of ${says.what} stopped on an answer it did not expect (request ${b.sent})`, {
      key: failureKey("burst stopped", `status ${b.unexpected.status}`),
      cause: b.unexpected.status >= 500 ? "response.no-5xx" : "rule",
      expected: `${says.expected}, then 429 rate_limited`,
      actual: answer(b.unexpected),
      exchange: b.unexpected,
    });
  }
  skipIfSlow(ctx, b);
  if (b.limited === undefined) {
    fail(`${b.sent} ${says.what} in a burst (${b.durationMs} ms) never met a 429 (${says.why})`, {
      key: says.key,
      expected: `429 rate_limited within ${b.sent} requests`,
      actual: `no 429 (first: ${b.first === undefined ? "none" : answer(b.first)})`,
      ...(b.first === undefined ? {} : { exchange: b.first }),
    });
  }
  expectError(
    b.limited,
    429,
    "rate_limited",
    "Beyond the rate limit the answer must be 429 rate_limited (§7, §8)",
  );
  ctx.observe(
    "429 met",
    `The burst of ${says.what} met its first 429 at request ${b.sent}, after ${b.durationMs} ms.`,
  );
}

/** A burst that met no 429 but outlasted a window proves nothing: a correct limit may have reset. */
function skipIfSlow(ctx: CheckContext, b: Burst): void {
  if (b.limited === undefined && b.unexpected === undefined && b.durationMs > ctx.options.rateWindowMs) {
    ctx.skip(`the burst took ${b.durationMs} ms, longer than the window: undecided`);
  }
}

const burst = (ctx: CheckContext): Promise<Burst> => {
  const token = fullToken(ctx);
  return ctx.shared.get(BURST).get(() => exhaust(ctx, successes(token)));
};

/**
 * Which budget a request counts toward where the target counts per `scope` (spec-gaps #21): its
 * token's or organization's, or the whole run's. A raw Authorization header that carries a manifest
 * token (`bearer <token>`) counts as that token's: a target may well accept it.
 */
function budgetOf(
  scope: "token" | "organization" | "address",
  request: HttpRequest,
  tokens: readonly ManifestToken[],
): string {
  if (scope === "address") return "";
  const auth = request.auth;
  const token =
    auth === null || auth === undefined
      ? undefined
      : "header" in auth
        ? tokens.find((t) => auth.header.includes(t.token))
        : auth;
  if (token === undefined) return "(no manifest token)";
  return scope === "token" ? token.label : token.organization;
}

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

/** An exchange the kit timed both ways, as every exchange its client makes is. */
function bracketed(ex: HttpExchange): ex is HttpExchange & { sentAt: number; answeredAt: number } {
  return ex.sentAt !== undefined && ex.answeredAt !== undefined;
}

export const rateLimitChecks: readonly Check[] = [
  {
    id: "ratelimit.counts-failures",
    section: SECTION.limits,
    clause: ["§8.1", "§7.8"],
    level: "MUST",
    rule: "Requests a valid token makes count toward the limit whatever their outcome: a quick burst of refused ones (400, 404) meets 429 within 2 × limit + 1",
    gap: 21,
    async run(ctx) {
      const token = rateTokens(ctx).refusals;
      if (token === undefined)
        return ctx.skip(
          "the manifest has no usable token besides the burst's, whose budget this would spend",
        );
      const b = await ctx.shared.get(FAILURE_BURST).get(() => exhaust(ctx, refusals(ctx, token)));
      expectLimited(ctx, b, {
        what: "refused requests",
        expected: "400 or 404",
        key: "no 429 in a burst of refused requests",
        why: "the limit does not count them",
      });
    },
  },
  {
    id: "ratelimit.burst",
    section: SECTION.limits,
    clause: ["§8.1", "§7.8"],
    level: "MUST",
    rule: "A quick burst with one token meets 429 rate_limited within 2 × limit + 1 requests",
    gap: 21,
    async run(ctx) {
      expectLimited(ctx, await burst(ctx), {
        what: "requests",
        expected: "200",
        key: "no 429 in the burst",
        why: `§8: ${ctx.options.rateLimit} per window`,
      });
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
      const { burst: full, refusals } = rateTokens(ctx);
      // A second burst against a target that never limited the first would only add load.
      if ((await burst(ctx)).limited === undefined) ctx.skip("the burst check met no 429");
      const b = await exhaust(ctx, successes(full));
      skipIfSlow(ctx, b);
      if (b.limited === undefined) ctx.skip("the token could not be brought to a 429");
      // Neither the bursts' tokens: a token limited by its own burst tells nothing of the scope.
      const spare = usableTokens(ctx).filter((t) => t.label !== full.label && t.label !== refusals?.label);
      const sibling = probeToken(
        ctx,
        spare.filter((t) => t.organization === full.organization),
      );
      const otherOrg = probeToken(
        ctx,
        spare.filter((t) => t.organization !== full.organization),
      );
      const probes: Array<[string, ManifestToken | null]> = [];
      if (sibling !== undefined) probes.push(["another token of the same organization", sibling]);
      if (otherOrg !== undefined) probes.push(["a token of another organization", otherOrg]);
      probes.push(["a request without a token", null]);
      const limited: string[] = [];
      for (const [what, token] of probes) {
        const ex = await ctx.http.sendUnpaced(listRequest("contacts", token, { limit: "1" }));
        if (ex.status === 429) limited.push(what);
        ctx.observe(
          `${what}: ${ex.status === 429 ? "limited" : "not limited"}`,
          `While one token is rate-limited, ${what} gets ${statusAndCode(ex)}.`,
        );
      }
      const reading =
        limited.length === 0
          ? "per token"
          : limited.length === probes.length
            ? "per client address (or globally)"
            : `shared with ${limited.join(" and ")}`;
      // What ratelimit.not-early counts by: only a reading the probes settle.
      const sameOrg = limited.length === 1 && limited[0] === "another token of the same organization";
      ctx.shared.get(RATE_SCOPE).scope =
        limited.length === 0 && sibling !== undefined
          ? "token"
          : limited.length === probes.length
            ? "address"
            : sameOrg
              ? "organization"
              : undefined;
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
      // A first answer already limited (the refused requests' burst spent a shared budget) shows no success.
      if (b.first !== undefined && b.first.status !== 429)
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
      const success = b.first?.status === 429 ? undefined : b.first;
      expectHeader(success, "ratelimit");
      expectHeader(success, "ratelimit-policy");
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
      const b = await exhaust(ctx, successes(token));
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
  {
    id: "ratelimit.not-early",
    section: SECTION.limits,
    clause: ["§8.1"],
    level: "MUST",
    rule: "No request is refused with 429 before the limit is used: each 429 of the run follows at least limit requests in the window before it, counted where the target counts (the scope ratelimit.scope reads; the whole run's requests when it cannot tell)",
    gap: 21,
    async run(ctx) {
      const history = ctx.http.history().filter(bracketed);
      const limited = history.filter((ex) => ex.status === 429);
      if (limited.length === 0) ctx.skip("no request of the run met a 429");
      const scope = ctx.shared.get(RATE_SCOPE).scope ?? "address";
      // The target took each request in somewhere between the kit sending it and the answer coming
      // back, however long the way (a busy machine, a slow proxy): a request counts when it may
      // have arrived before the 429's request and within the window before it. The margin on the
      // window covers a target whose clock ticks coarsely. Both make the kit count more, never
      // fewer, of what the target counted.
      const window = ctx.options.rateWindowMs + Math.min(2000, ctx.options.rateWindowMs / 20);
      const tokens = ctx.tokens.manifest.tokens;
      for (const ex of limited) {
        const budget = budgetOf(scope, ex.request, tokens);
        const counted = history.filter(
          (e) =>
            e !== ex &&
            e.status !== 429 &&
            e.sentAt <= ex.answeredAt &&
            e.answeredAt >= ex.sentAt - window &&
            budgetOf(scope, e.request, tokens) === budget,
        ).length;
        if (counted < ctx.options.rateLimit) {
          fail(
            `A 429 came after ${counted} requests in its window, before the limit of ${ctx.options.rateLimit} was used (§8)`,
            {
              key: failureKey("429 before the limit", `counted per ${scope}`),
              expected: `at least ${ctx.options.rateLimit} requests counted per ${scope} in the window before a 429`,
              actual: `${counted} requests, then 429`,
              exchange: ex,
            },
          );
        }
      }
      ctx.observe(
        `judged per ${scope}`,
        `Every 429 of the run came after the limit was used, counted per ${scope}.`,
      );
    },
  },
];
