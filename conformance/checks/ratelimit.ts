import type { ManifestToken } from "../manifest-schema.js";
import { failureKey } from "../failures.js";
import { remainingOf, retryAfterMs } from "../exchange.js";
import type { Check, CheckContext, HttpExchange, HttpRequest } from "../types.js";
import { answer, expectError, fail, header, statusAndCode } from "../support/assert.js";
import {
  exactBurst,
  exhaust,
  judgedWindowMs,
  quiet,
  type Burst,
  type BurstPlan,
  type ExactBurst,
} from "../support/burst.js";
import { fullToken, leastUsed, listRequest, usableTokens } from "../support/data.js";
import { onceSlot, valueSlot } from "../support/shared.js";
import { SECTION } from "../spec/clauses.js";

/**
 * §8: "100 requests per minute; beyond it, 429 rate_limited" (spec-gaps #21). These checks exhaust
 * the limit: the catalogue runs them in its final phase (checks/index.ts), the burst first.
 */

const ORIGIN = "https://ratelimit.conformance.example";

/** The exact burst the final phase's checks read (support/burst.ts). */
const BURST = onceSlot<ExactBurst>("the burst");
/** What the rate limit reads as counting (ratelimit.scope), once it could be told. */
const RATE_SCOPE = valueSlot<{ scope?: "token" | "organization" | "address" | undefined }>(
  "the rate limit's scope",
  () => ({}),
);

/** The plain burst: one successful read, again and again. */
const successes = (ctx: CheckContext, token: ManifestToken): BurstPlan => ({
  request: () => ({ ...listRequest(ctx, "contacts", token, { limit: "1" }), headers: { Origin: ORIGIN } }),
  expected: (status) => status === 200,
});

/**
 * The exact burst's requests: a successful read and a request the target refuses in turn (limit=0: 400,
 * or a clamped page; a path that is no endpoint: 404 or 405). §8 counts requests, whatever their
 * outcome: the target serves `limit` of them, refusals included, and answers 429 to the rest. One burst
 * judges both (ratelimit.burst, ratelimit.counts-failures) and spends one token's budget, not two: what
 * a run leaves spent, the next run on the same target (a re-run, a second CI job) meets.
 */
const readsAndRefusals =
  (ctx: CheckContext) =>
  (token: ManifestToken): BurstPlan => ({
    request: (n) =>
      n % 2 === 0
        ? { ...listRequest(ctx, "contacts", token, { limit: "1" }), headers: { Origin: ORIGIN } }
        : n % 4 === 1
          ? { ...listRequest(ctx, "contacts", token, { limit: "0" }), headers: { Origin: ORIGIN } }
          : {
              method: "GET",
              path: `/api/v1/${ctx.marker}-nowhere`,
              auth: token,
              headers: { Origin: ORIGIN },
            },
    expected: (status, request) =>
      request.query?.limit === "1" ? status === 200 : status < 500 && status !== 401 && status !== 403,
  });

/** Tokens holding contacts:read (what the burst reads), the reserved one left out. */
const readers = (ctx: CheckContext): ManifestToken[] =>
  usableTokens(ctx).filter((t) => t.scopes.includes(ctx.spec.LISTS.contacts.scope));

/**
 * Of `tokens`, those another usable token can stand in for (same organization, same scopes): a budget
 * the final phase spends on one of them leaves the next run (a re-run, a second CI job) another.
 */
function replaceable(ctx: CheckContext, tokens: readonly ManifestToken[]): ManifestToken[] {
  const usable = usableTokens(ctx);
  const scopes = (t: ManifestToken): string => [...t.scopes].sort().join(" ");
  return tokens.filter((t) =>
    usable.some((o) => o !== t && o.organization === t.organization && scopes(o) === scopes(t)),
  );
}

/** The token of `tokens` that sent the fewest requests lately, a replaceable one first. */
const spendable = (ctx: CheckContext, tokens: readonly ManifestToken[]): ManifestToken | undefined =>
  leastUsed(ctx, replaceable(ctx, tokens)) ?? leastUsed(ctx, tokens);

/**
 * The token the burst spends: the one the run kept unused, else a reader of organization 0 that sent
 * the fewest requests lately, one another token can stand in for first.
 */
const burstToken = (ctx: CheckContext): ManifestToken =>
  ctx.tokens.reserved ??
  spendable(
    ctx,
    readers(ctx).filter((t) => t.organization === fullToken(ctx).organization),
  ) ??
  fullToken(ctx);

/**
 * The spare token holding contacts:read that sent the fewest requests in the last window: a limit
 * shared with the burst's token shows on it, and nothing else does. A token lacking the scope would
 * say nothing: a target may judge the scope before the limit.
 */
const probeToken = (ctx: CheckContext, candidates: readonly ManifestToken[]): ManifestToken | undefined =>
  leastUsed(
    ctx,
    candidates.filter((t) => t.scopes.includes(ctx.spec.LISTS.contacts.scope)),
  );

/** The burst's answer that stopped it, as a failure: a 5xx is the no-5xx rule's, anything else this rule's. */
function failUnexpected(b: Burst, what: string, expected: string): void {
  if (b.unexpected === undefined) return;
  fail(`The burst of ${what} met an answer it did not expect (${b.sent} sent)`, {
    key: failureKey("burst stopped", `status ${b.unexpected.status}`),
    cause: b.unexpected.status >= 500 ? "response.no-5xx" : "rule",
    expected: `${expected}, then 429 rate_limited`,
    actual: answer(b.unexpected),
    exchange: b.unexpected,
  });
}

/**
 * §8: the burst met 429 rate_limited, having met no answer its plan did not expect on the way (a
 * burst that outlasted a window without a 429 proves nothing: skipped).
 */
function expectLimited(
  ctx: CheckContext,
  b: Burst,
  says: { what: string; expected: string; key: string; why: string },
): asserts b is Burst & { limited: HttpExchange } {
  failUnexpected(b, says.what, says.expected);
  if (b.limited === undefined && b.durationMs > ctx.options.rateWindowMs) {
    ctx.skip(`the burst took ${b.durationMs} ms, longer than the window: undecided`);
  }
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
    ctx.spec.ERRORS.rateLimited.status,
    ctx.spec.ERRORS.rateLimited.code,
    "Beyond the rate limit the answer must be 429 rate_limited (§7, §8)",
  );
  ctx.observe(
    "429 met",
    `The burst of ${says.what} met its first 429 at request ${b.exchanges.indexOf(b.limited) + 1}, after ${b.durationMs} ms.`,
  );
}

/** The exact burst of the run, made once (ratelimit.burst judges it; scope and headers read it). */
const burst = (ctx: CheckContext): Promise<ExactBurst> =>
  ctx.shared.get(BURST).get(() => {
    const first = burstToken(ctx);
    // After a window without requests any token's budget is fresh: another one than the first.
    const then = (spent: ManifestToken): ManifestToken =>
      spendable(
        ctx,
        readers(ctx).filter((t) => t.label !== spent.label),
      ) ?? spent;
    return exactBurst(ctx, readsAndRefusals(ctx), first, then);
  });

/** How the judged burst went, in words: `served 100 of 110 in 41 ms`. */
const served = (b: Burst): string => `served ${b.served} of ${b.sent} in ${b.durationMs} ms`;

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

/** An exchange the kit timed both ways, as every exchange its client makes is. */
function bracketed(ex: HttpExchange): ex is HttpExchange & { sentAt: number; answeredAt: number } {
  return ex.sentAt !== undefined && ex.answeredAt !== undefined;
}

export const rateLimitChecks: readonly Check[] = [
  {
    id: "ratelimit.burst",
    section: SECTION.limits,
    clause: ["§8.1", "§7.8"],
    level: "MUST",
    rule: "A burst on a token nothing used for a window, sent too fast for any legal limiter (fixed window, sliding window or log, token bucket) to refill or reset, is served exactly limit times and answered 429 rate_limited for the rest; a burst served otherwise (an earlier request still counted, a fixed window reset during it) is sent again, after a window without requests, on another token, and that one is judged",
    gap: 21,
    async run(ctx) {
      const { verdict, judged: b, before, size, refill, debt } = await burst(ctx);
      const limit = ctx.options.rateLimit;
      failUnexpected(b, "requests", "200");
      if (before !== undefined) {
        ctx.observe(
          "burst sent twice",
          `The first burst (${before.token.label}) was ${served(before)}, not ${limit}: after a window without requests, the one judged (${b.token.label}) was ${served(b)}.`,
        );
      }
      const tolerance =
        refill === 0 ? "" : ` (or up to ${refill} more: a token bucket refills while it lasts)`;
      if (verdict === "too many") {
        fail(`A burst of ${size} on a fresh budget was ${served(b)}: more than the limit of ${limit} (§8)`, {
          key: "more than the limit served",
          expected: `${limit} answers served${tolerance}, then 429 rate_limited`,
          actual: `${b.served} served${before === undefined ? "" : `; the burst before it ${before.served}`}`,
          exchange: b.exchanges.filter((ex) => ex.status !== 429).at(-1) ?? b.exchanges[0],
        });
      }
      if (verdict === "too few") {
        fail(
          `A burst of ${size} sent after a window without requests was ${served(b)}: refused before the limit of ${limit} was used (§8)`,
          {
            key: "429 before the limit in a fresh burst",
            expected: `${limit} answers served${tolerance}, then 429 rate_limited`,
            actual: `${b.served} served, then ${b.limited === undefined ? "no" : answer(b.limited)}`,
            ...(b.limited === undefined ? {} : { exchange: b.limited }),
          },
        );
      }
      for (const ex of b.exchanges.filter((e) => e.status === 429)) {
        expectError(
          ex,
          ctx.spec.ERRORS.rateLimited.status,
          ctx.spec.ERRORS.rateLimited.code,
          "Beyond the rate limit the answer must be 429 rate_limited (§7, §8)",
        );
      }
      const counted =
        debt === undefined || debt === 0
          ? ""
          : `, ${debt} of its budget already counted, as the target's headers said`;
      ctx.observe(
        before === undefined ? "served exactly the limit" : "served exactly the limit the second time",
        `The burst of ${size} (${b.token.label}) was ${served(b)}${counted}${refill === 0 ? "" : `; ${refill} more would have been a token bucket's refill`}.`,
      );
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
      const { judged } = await burst(ctx);
      const full = judged.token;
      if (judged.limited === undefined) ctx.skip("the burst met no 429");
      // Still limited? A target that let the token go since (a fixed window's end) is brought back to it.
      const again = await ctx.http.sendUnpaced(successes(ctx, full).request(0));
      if (again.status !== 429) {
        const b = await exhaust(ctx, full, successes(ctx, full));
        if (b.limited === undefined) ctx.skip("the token could not be brought to a 429");
      }
      // Not the burst's token: a token limited by its own burst tells nothing of the scope.
      const spare = usableTokens(ctx).filter((t) => t.label !== full.label);
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
        const ex = await ctx.http.sendUnpaced(listRequest(ctx, "contacts", token, { limit: "1" }));
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
      const b = (await burst(ctx)).judged;
      const success = b.exchanges.find((ex) => ex.status === 200);
      if (success !== undefined)
        ctx.observe(
          `on success: ${rateHeaderNames(success)}`,
          `A successful answer carries rate-limit headers: ${rateHeaders(success)}.`,
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
      const b = (await burst(ctx)).judged;
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
      const success = b.exchanges.find((ex) => ex.status === 200);
      expectHeader(success, "ratelimit");
      expectHeader(success, "ratelimit-policy");
      if (b.limited === undefined) ctx.skip("the burst met no 429 (ratelimit.burst reports it)");
      expectHeader(b.limited, "retry-after");
      expectHeader(b.limited, "ratelimit-policy");
    },
  },
  {
    id: "ratelimit.counts-failures",
    section: SECTION.limits,
    clause: ["§8.1", "§7.8"],
    level: "MUST",
    rule: "Requests a valid token makes count toward the limit whatever their outcome: the exact burst, half of it requests the target refuses (400, 404), meets 429; one that met none goes on with refused requests alone, which must meet 429 within 2 × limit + 1",
    gap: 21,
    async run(ctx) {
      const b = (await burst(ctx)).judged;
      failUnexpected(b, "reads and refused requests", "200 to the reads, 400 or 404 to the others");
      if (b.limited !== undefined) {
        ctx.observe("429 met", `The burst of reads and refused requests met a 429 after ${b.served} served.`);
        return;
      }
      // Served whole: a limit higher than declared (ratelimit.burst's), or one that does not count refusals.
      const refused = readsAndRefusals(ctx)(b.token);
      const more = await exhaust(ctx, b.token, {
        request: (n) => refused.request(2 * n + 1),
        expected: (status, request) => refused.expected(status, request),
      });
      expectLimited(ctx, more, {
        what: `refused requests after ${b.sent} reads and refused requests all served`,
        expected: "400 or 404",
        key: "no 429 in a burst of refused requests",
        why: "the limit does not count refused requests, or there is none",
      });
    },
  },
  {
    id: "ratelimit.retry-after",
    section: SECTION.limits,
    clause: ["§8.1", "§8.10"],
    level: "MUST",
    rule: "Once rate-limited, a window without requests restores service (§8: 100 requests per minute); whether waiting Retry-After alone does is shown (its headers are not shown)",
    gap: 21,
    slow: true,
    async run(ctx) {
      const token = fullToken(ctx);
      const b = await exhaust(ctx, token, successes(ctx, token));
      failUnexpected(b, "requests", "200");
      if (b.limited === undefined && b.durationMs > ctx.options.rateWindowMs) {
        ctx.skip(`the burst took ${b.durationMs} ms, longer than the window: undecided`);
      }
      if (b.limited === undefined) {
        fail("The token could not be brought to a 429 to wait it out", {
          key: "no 429 to wait out",
          expected: "a 429",
          actual: `${b.sent} answers, none 429`,
        });
      }
      const given = retryAfterMs(header(b.limited, "retry-after"), ctx.clock.now());
      // Retry-After counts whole seconds; a quarter-second margin covers its rounding and the clocks.
      if (given !== undefined && given + 250 < judgedWindowMs(ctx)) {
        await ctx.clock.sleep(given + 250, "waiting the Retry-After of the 429");
        const early = await ctx.http.sendUnpaced(listRequest(ctx, "contacts", token, { limit: "1" }));
        ctx.observe(
          early.status === 200 ? "Retry-After was enough" : "Retry-After was not enough",
          `After the ${Math.round(given / 100) / 10} s Retry-After asked, the request got ${statusAndCode(early)}.`,
        );
        if (early.status === 200) return;
      } else {
        ctx.observe(
          given === undefined ? "no Retry-After" : "Retry-After of a window or more",
          given === undefined
            ? "The 429 carries no Retry-After."
            : `The 429 asks to wait ${Math.round(given / 1000)} s.`,
        );
      }
      await quiet(ctx, "a window without requests, after which §8's limit must allow again");
      const ex = await ctx.http.sendUnpaced(listRequest(ctx, "contacts", token, { limit: "1" }));
      if (ex.status !== 200) {
        fail("After a window without requests, the request is still refused", {
          key: failureKey("still refused after a window", `status ${ex.status}`),
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
    rule: "No request is refused with 429 before the limit is used: each 429 of the run follows at least limit requests in the window before it, counted where the target counts (the scope ratelimit.scope reads; the whole run's requests when it cannot tell). Requests made before the run count at the target too: a 429 is judged once the run has seen a whole window of its own, or earlier when the target's rate-limit headers say how many it counted before the run",
    gap: 21,
    // It judges the 429s of the run: the burst's, when nothing else met one.
    needs: ["ratelimit.burst"],
    async run(ctx) {
      const history = ctx.http.history().filter(bracketed);
      const limited = history.filter((ex) => ex.status === 429);
      if (limited.length === 0) ctx.skip("no request of the run met a 429");
      const scope = ctx.shared.get(RATE_SCOPE).scope ?? "address";
      const limit = ctx.options.rateLimit;
      // The target took each request in somewhere between the kit sending it and the answer coming
      // back, however long the way (a busy machine, a slow proxy): a request counts when it may
      // have arrived before the 429's request and within the window before it. The margin on the
      // window covers a target whose clock ticks coarsely. Both make the kit count more, never
      // fewer, of what the target counted.
      const window = judgedWindowMs(ctx);
      const tokens = ctx.tokens.manifest.tokens;
      const start = Math.min(...history.map((ex) => ex.sentAt));
      const debts = new Map<string, number | undefined>();
      /**
       * What the target had counted in a budget before the run, from its headers: the first answer of
       * the run in that budget, when it says how many remain (a 429 first: everything). Undefined when
       * it says nothing.
       */
      const debtOf = (budget: string): number | undefined => {
        if (debts.has(budget)) return debts.get(budget);
        const first = history.find((e) => budgetOf(scope, e.request, tokens) === budget);
        const remaining = first === undefined ? undefined : remainingOf(first);
        const debt =
          first?.status === 429
            ? limit
            : remaining === undefined
              ? undefined
              : Math.max(0, limit - 1 - Math.min(remaining, limit - 1));
        debts.set(budget, debt);
        return debt;
      };
      let unjudged = 0;
      for (const ex of limited) {
        const budget = budgetOf(scope, ex.request, tokens);
        // Past the run's first window nothing from before it counts; inside it, only what the headers tell.
        const debt = ex.sentAt - start >= window ? 0 : debtOf(budget);
        if (debt === undefined) {
          unjudged += 1;
          continue;
        }
        const counted = history.filter(
          (e) =>
            e !== ex &&
            e.status !== 429 &&
            e.sentAt <= ex.answeredAt &&
            e.answeredAt >= ex.sentAt - window &&
            budgetOf(scope, e.request, tokens) === budget,
        ).length;
        if (counted + debt < limit) {
          fail(
            `A 429 came after ${counted} requests in its window${debt === 0 ? "" : ` and ${debt} the target said it had counted before the run`}, before the limit of ${limit} was used (§8)`,
            {
              key: failureKey("429 before the limit", `counted per ${scope}`),
              expected: `at least ${limit} requests counted per ${scope} in the window before a 429`,
              actual: `${counted + debt} requests, then 429`,
              exchange: ex,
            },
          );
        }
      }
      if (unjudged > 0) {
        ctx.observe(
          "429s in the first window not judged",
          `${unjudged} 429s came within the run's first window, where requests made before the run may still count, and the target sent no rate-limit header saying how many: not judged.`,
        );
      }
      if (unjudged < limited.length) {
        ctx.observe(
          `judged per ${scope}`,
          `Every 429 of the run judged came after the limit was used, counted per ${scope}.`,
        );
      }
    },
  },
];
