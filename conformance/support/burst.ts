import type { ManifestToken } from "../manifest-schema.js";
import { remainingOf } from "../exchange.js";
import type { CheckContext, HttpExchange, HttpRequest } from "../types.js";

/**
 * Bursts against §8's rate limit (spec-gaps #21): requests sent without pacing, and what the target
 * served of them. `exactBurst` is the judge of "100 requests per minute; beyond it, 429": a burst on a
 * budget nothing used for a window, sent so fast that no legal limiter (a fixed window, a sliding
 * window or log, a token bucket of capacity `limit` refilled at `limit` a window) can refill or reset
 * during it, is served exactly `limit` times.
 */

/** Requests in flight at once in a burst: the whole burst goes out nearly at once, up to this. */
const IN_FLIGHT = 50;
/** Requests in flight at once while exhausting a budget until its first 429. */
const BATCH = 10;

/** What a burst sends (its n-th request), and which answers other than 429 it expects to each. */
export interface BurstPlan {
  request: (n: number) => HttpRequest;
  expected: (status: number, request: HttpRequest) => boolean;
}

export interface Burst {
  /** The token the burst spent. */
  token: ManifestToken;
  /** Requests sent. */
  sent: number;
  /** Answers that were neither 429 nor unexpected: what the target served. */
  served: number;
  /** The answers, in the order the requests were sent. */
  exchanges: readonly HttpExchange[];
  first: HttpExchange | undefined;
  /** The first 429, in sending order, if one came. */
  limited: HttpExchange | undefined;
  /** The first answer that was neither expected nor 429. */
  unexpected: HttpExchange | undefined;
  /** From the first request sent to the last answer read, on the run's clock. */
  durationMs: number;
}

function burstFrom(
  token: ManifestToken,
  plan: BurstPlan,
  exchanges: HttpExchange[],
  durationMs: number,
): Burst {
  const limited = exchanges.find((ex) => ex.status === 429);
  const unexpected = exchanges.find((ex) => ex.status !== 429 && !plan.expected(ex.status, ex.request));
  return {
    token,
    sent: exchanges.length,
    served: exchanges.filter((ex) => ex.status !== 429 && plan.expected(ex.status, ex.request)).length,
    exchanges,
    first: exchanges[0],
    limited,
    unexpected,
    durationMs,
  };
}

/** `count` requests of the plan, unpaced, IN_FLIGHT at a time; every answer kept. */
export async function burstOf(
  ctx: CheckContext,
  token: ManifestToken,
  plan: BurstPlan,
  count: number,
): Promise<Burst> {
  const started = ctx.clock.now();
  const exchanges = new Array<HttpExchange>(count);
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let n = next++; n < count; n = next++) exchanges[n] = await ctx.http.sendUnpaced(plan.request(n));
  };
  await Promise.all(Array.from({ length: Math.min(IN_FLIGHT, count) }, worker));
  return burstFrom(token, plan, exchanges, ctx.clock.now() - started);
}

/**
 * Unpaced requests until a 429, at most 2 × limit + 1 (a fixed window may reset mid-burst), sent BATCH
 * at a time; stops at the first batch holding a 429 or an answer the plan does not expect. For the
 * checks that need a budget spent, not counted.
 */
export async function exhaust(ctx: CheckContext, token: ManifestToken, plan: BurstPlan): Promise<Burst> {
  const max = 2 * ctx.options.rateLimit + 1;
  const started = ctx.clock.now();
  const exchanges: HttpExchange[] = [];
  while (exchanges.length < max) {
    const from = exchanges.length;
    const batch = await Promise.all(
      Array.from({ length: Math.min(BATCH, max - from) }, (_, i) =>
        ctx.http.sendUnpaced(plan.request(from + i)),
      ),
    );
    exchanges.push(...batch);
    if (batch.some((ex) => ex.status === 429 || !plan.expected(ex.status, ex.request))) break;
  }
  const stop = exchanges.findIndex((ex) => ex.status === 429 || !plan.expected(ex.status, ex.request));
  return burstFrom(
    token,
    plan,
    stop === -1 ? exchanges : exchanges.slice(0, stop + 1),
    ctx.clock.now() - started,
  );
}

/**
 * The window the kit judges by, with a margin for a target whose clock ticks coarsely: min(2 s, a
 * twentieth of the window). A wait this long after the run's last answer leaves nothing of the run,
 * nor of anything before it, in any legal limiter's count.
 */
export const judgedWindowMs = (ctx: Pick<CheckContext, "options">): number =>
  ctx.options.rateWindowMs + Math.min(2000, ctx.options.rateWindowMs / 20);

/** Waits until a judged window has passed since the last answer of the run. */
export async function quiet(ctx: CheckContext, why: string): Promise<void> {
  const last = Math.max(0, ...ctx.http.history().map((ex) => ex.answeredAt ?? ex.sentAt ?? 0));
  const wait = last + judgedWindowMs(ctx) - ctx.clock.now();
  if (wait > 0) await ctx.clock.sleep(wait, why);
}

/** How many answers a burst this long may serve beyond the limit: what a token bucket refills meanwhile. */
export const refillDuring = (ctx: Pick<CheckContext, "options">, durationMs: number): number =>
  Math.floor((Math.max(0, durationMs) * ctx.options.rateLimit) / ctx.options.rateWindowMs);

export type BurstVerdict = "exact" | "too many" | "too few" | "unexpected";

export interface ExactBurst {
  verdict: BurstVerdict;
  /**
   * What the target's headers said it had counted in the budget before the judged burst (undefined
   * without headers, 0 for a burst after a window without requests).
   */
  debt: number | undefined;
  /** The burst judged: the first, when it was exact; else the one sent after a window without requests. */
  judged: Burst;
  /** The first burst, when it was not the one judged. */
  before?: Burst | undefined;
  /** Requests each burst sent: the limit, and some more to be refused. */
  size: number;
  /** Answers the judged burst could serve beyond the limit (a token bucket's refill while it lasted). */
  refill: number;
}

/** Requests a burst sends beyond the limit: enough to see "429 for the rest", few enough to stay quick. */
export const burstExtra = (limit: number): number => Math.max(5, Math.ceil(limit / 10));

/** Whether the request was sent with the token. A header that only contains the secret (a near miss) may count elsewhere: only §5's own form. */
function sentWith(ex: HttpExchange, token: ManifestToken): boolean {
  const auth = ex.request.auth;
  if (auth === null || auth === undefined) return false;
  return "header" in auth ? auth.header === `Bearer ${token.token}` : auth.label === token.label;
}

/**
 * What the target had already counted in `token`'s budget when the burst began, as far as the kit can
 * know it without waiting: what the target's rate-limit headers said on the burst's first answer, sent
 * alone, when that is at least what the run itself sent with the token within the window (a count
 * below the run's own is no count of this budget, or a fixed window's the kit cannot place); without
 * headers, nothing when no request of the run used the token within the window (what came before the
 * run the kit cannot see: a burst short of the limit then waits and repeats). Undefined: unknown.
 */
function debtBefore(ctx: CheckContext, token: ManifestToken, opening: HttpExchange): number | undefined {
  const limit = ctx.options.rateLimit;
  // The run's own requests the target surely still counts: sent well inside the window before it.
  const margin = judgedWindowMs(ctx) - ctx.options.rateWindowMs;
  const from = (opening.sentAt ?? ctx.clock.now()) - (ctx.options.rateWindowMs - margin);
  const history = ctx.http.history();
  const own = history.slice(0, Math.max(0, history.indexOf(opening))).filter((ex) => {
    return (ex.sentAt ?? 0) >= from && sentWith(ex, token);
  }).length;
  const remaining = opening.status === 429 ? undefined : remainingOf(opening);
  if (remaining === undefined) return own === 0 ? 0 : undefined;
  const debt = Math.max(0, limit - 1 - Math.min(remaining, limit - 1));
  return debt >= own ? debt : undefined;
}

/**
 * Waits, a tenth of a window at most, until none of the run's own requests with `token` can leave a
 * sliding window during a burst sent now: each one that left mid-burst would let one more through,
 * and the first burst would prove nothing (a window's wait, then a second burst). The run's earliest
 * requests are the likeliest: a default run against the reference waits a window for its pacing, and
 * its burst then fell a window after its first checks. Only the timing moves; the judgement does not.
 */
async function clearOfTheEdge(ctx: CheckContext, token: ManifestToken): Promise<void> {
  const windowMs = ctx.options.rateWindowMs;
  const margin = judgedWindowMs(ctx) - windowMs;
  const deadline = ctx.clock.now() + windowMs / 10;
  const times = ctx.http
    .history()
    .filter((ex) => sentWith(ex, token))
    .map((ex) => ex.sentAt ?? 0);
  for (;;) {
    const now = ctx.clock.now();
    // A burst lasts well under the margin on loopback; both ends get one for the clocks' skew.
    const leaving = times.filter((t) => t >= now - windowMs - margin && t <= now - windowMs + 2 * margin);
    if (leaving.length === 0) return;
    const clear = Math.max(...leaving) + windowMs + margin + 1;
    if (clear > deadline) return;
    await ctx.clock.sleep(
      clear - now,
      `${leaving.length} earlier requests of ${token.label} leave the window`,
    );
  }
}

/**
 * The exact burst. The first goes out on `first` (the token the run kept unused when the target sends
 * no rate-limit header; else the one the headers will tell about), its first request alone. Served
 * exactly `limit` times, less what the target had already counted in the budget (`debtBefore`; a
 * token bucket's refill during it allowed), it passes. Otherwise it proves nothing yet: fewer means
 * requests from before the run, or of the run in a wider scope than the token, were still counted;
 * more means a fixed window may have reset during it, or an earlier request left a sliding window
 * during it. The kit then waits for a window without any request, after which every legal limiter has
 * forgotten everything, and repeats the burst on another token (`then`): that one is judged, with
 * nothing counted before it, headers or not.
 */
export async function exactBurst(
  ctx: CheckContext,
  plan: (token: ManifestToken) => BurstPlan,
  first: ManifestToken,
  then: (spent: ManifestToken) => ManifestToken,
): Promise<ExactBurst> {
  const limit = ctx.options.rateLimit;
  const size = limit + burstExtra(limit);
  const judge = (b: Burst, debt: number | undefined) => {
    const refill = refillDuring(ctx, b.durationMs);
    const floor = limit - (debt ?? 0);
    const verdict: BurstVerdict =
      b.unexpected !== undefined
        ? "unexpected"
        : b.served > limit + refill
          ? "too many"
          : debt === undefined || b.served < floor || b.served > floor + refill
            ? "too few"
            : "exact";
    return { verdict, refill, debt };
  };
  const send = async (token: ManifestToken): Promise<{ b: Burst; opening: HttpExchange }> => {
    const started = ctx.clock.now();
    const steps = plan(token);
    const opening = await ctx.http.sendUnpaced(steps.request(0));
    const rest = await burstOf(ctx, token, { ...steps, request: (n) => steps.request(n + 1) }, size - 1);
    const exchanges = [opening, ...rest.exchanges];
    return { b: burstFrom(token, steps, exchanges, ctx.clock.now() - started), opening };
  };
  await clearOfTheEdge(ctx, first);
  const { b: opening, opening: alone } = await send(first);
  const once = judge(opening, debtBefore(ctx, first, alone));
  if (once.verdict === "exact" || once.verdict === "unexpected") return { ...once, judged: opening, size };
  await quiet(
    ctx,
    `the burst was served ${opening.served} times, not ${limit}${once.debt === undefined || once.debt === 0 ? "" : ` less ${once.debt}`}: it is sent again after a window without requests`,
  );
  const token = then(first);
  const { b: again } = await send(token);
  return { ...judge(again, 0), judged: again, before: opening, size };
}
