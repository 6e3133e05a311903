import { kitSpec } from "../spec/kit-spec.js";
import { describe, expect, it } from "vitest";
import { nth, testManifest } from "../test-support/local.js";
import type { ManifestToken } from "../manifest-schema.js";
import { sharedStore, type CheckContext, type HttpExchange, type HttpRequest } from "../types.js";
import { exactBurst, type BurstPlan } from "./burst.js";

/**
 * The exact burst's judgement against simulated limiters, on a virtual clock that moves only when the
 * kit waits (or when a limiter says time passed mid-burst): no server, no real time.
 */

const LIMIT = 100;
const WINDOW = 60_000;

interface Limiter {
  /** Whether the request is served now; counts it. */
  take(key: string, now: number): boolean;
  /** What the limiter's headers say remains, if it sends any. */
  remaining?(key: string, now: number): number;
}

/** A sliding log of `limit` per window. */
function slidingLog(limit = LIMIT): Limiter {
  const logs = new Map<string, number[]>();
  const recent = (key: string, now: number): number[] => {
    const kept = (logs.get(key) ?? []).filter((t) => t > now - WINDOW);
    logs.set(key, kept);
    return kept;
  };
  return {
    take(key, now) {
      const log = recent(key, now);
      if (log.length >= limit) return false;
      log.push(now);
      return true;
    },
    remaining: (key, now) => Math.max(0, limit - recent(key, now).length),
  };
}

/** A fixed window whose count resets once, after `resetAfter` requests of the first burst. */
function fixedWindowResettingAfter(resetAfter: number): Limiter {
  const counts = new Map<string, number>();
  let seen = 0;
  return {
    take(key) {
      seen += 1;
      if (seen === resetAfter + 1) counts.clear();
      const n = counts.get(key) ?? 0;
      if (n >= LIMIT) return false;
      counts.set(key, n + 1);
      return true;
    },
  };
}

interface Target {
  ctx: CheckContext;
  sent: HttpRequest[];
  waits: number[];
}

/** A context whose target answers list reads through `limiter`, per token (or one key: `shared`). */
function target(
  limiter: Limiter,
  options: { headers?: boolean; shared?: boolean; msPerRequest?: number } = {},
): Target {
  const manifest = testManifest();
  const history: HttpExchange[] = [];
  const sent: HttpRequest[] = [];
  const waits: number[] = [];
  let now = 1_000_000;
  const answer = (request: HttpRequest): Promise<HttpExchange> => {
    sent.push(request);
    const auth = request.auth;
    const key =
      options.shared === true
        ? "all"
        : auth !== null && auth !== undefined && !("header" in auth)
          ? auth.label
          : "anonymous";
    now += options.msPerRequest ?? 0;
    const served = limiter.take(key, now);
    const remaining = options.headers === true ? limiter.remaining?.(key, now) : undefined;
    const ex: HttpExchange = {
      request,
      sentAt: now,
      answeredAt: now,
      status: served ? 200 : 429,
      headers: {
        "content-type": "application/json",
        ...(remaining === undefined ? {} : { ratelimit: `"p";r=${remaining};t=60` }),
      },
      text: "",
      json: served ? { data: [] } : { error: { code: "rate_limited", message: "m" } },
      curl: "curl x",
    };
    history.push(ex);
    return Promise.resolve(ex);
  };
  const ctx: CheckContext = {
    spec: kitSpec(),
    http: { send: answer, sendUnpaced: answer, history: () => history },
    tokens: { manifest, find: () => nth(manifest.tokens, 0), get: () => nth(manifest.tokens, 0) },
    options: {
      profile: "spec",
      strict: false,
      readOnly: false,
      seed: 1,
      numRuns: 1,
      rateLimit: LIMIT,
      rateLimitPer: "token",
      rateWindowMs: WINDOW,
    },
    marker: "cfk-test",
    skip: (reason) => {
      throw new Error(reason);
    },
    observe: () => undefined,
    shared: sharedStore(),
    clock: {
      now: () => now,
      sleep: (ms) => {
        waits.push(ms);
        now += ms;
        return Promise.resolve();
      },
    },
  };
  return { ctx, sent, waits };
}

const reads = (token: ManifestToken): BurstPlan => ({
  request: () => ({ method: "GET", path: "/api/v1/contacts", query: { limit: "1" }, auth: token }),
  expected: (status) => status === 200,
});

const tokens = testManifest().tokens;
const first = nth(tokens, 0);
const other = nth(tokens, 1);

/** `n` earlier reads with `token`, as the run's checks would have made them. */
async function spend(t: Target, token: ManifestToken, n: number): Promise<void> {
  for (let i = 0; i < n; i += 1) await t.ctx.http.send(reads(token).request(i));
}

describe("the exact burst", () => {
  it("passes a fresh budget served exactly the limit, at once, without waiting", async () => {
    const t = target(slidingLog());
    const burst = await exactBurst(t.ctx, reads, first, () => other);
    expect(burst).toMatchObject({ verdict: "exact", debt: 0, size: 110, refill: 0 });
    expect(burst.judged.served).toBe(100);
    expect(burst.before).toBeUndefined();
    expect(t.waits).toEqual([]);
  });

  it("fails a target serving the 101st, after sending the burst again on another token after a window without requests", async () => {
    const t = target(slidingLog(LIMIT + 1));
    const burst = await exactBurst(t.ctx, reads, first, () => other);
    expect(burst.verdict).toBe("too many");
    expect(burst.before?.served).toBe(101);
    expect(burst.judged).toMatchObject({ served: 101, token: other });
    expect(t.waits).toEqual([WINDOW + 2000]);
  });

  it("passes a fixed window that resets during the first burst: the burst is sent again, and that one is exact", async () => {
    const t = target(fixedWindowResettingAfter(40));
    const burst = await exactBurst(t.ctx, reads, first, () => other);
    expect(burst.before?.served).toBe(110);
    expect(burst).toMatchObject({ verdict: "exact" });
    expect(burst.judged.served).toBe(100);
  });

  it("does not judge a budget the run already used without headers to say how much: it waits, then judges", async () => {
    const t = target(slidingLog());
    await spend(t, first, 30);
    const burst = await exactBurst(t.ctx, reads, first, () => other);
    expect(burst.before?.served).toBe(70);
    expect(burst).toMatchObject({ verdict: "exact" });
    expect(t.waits).toHaveLength(1);
  });

  it("judges at once a used budget whose headers count at least what the run sent", async () => {
    const t = target(slidingLog(), { headers: true });
    await spend(t, first, 30);
    const burst = await exactBurst(t.ctx, reads, first, () => other);
    expect(burst).toMatchObject({ verdict: "exact", debt: 30 });
    expect(burst.judged.served).toBe(70);
    expect(t.waits).toEqual([]);
  });

  it("waits a moment, not a window, when the run's earlier requests would leave a sliding window during the burst", async () => {
    // Each request takes 5 ms: the 30 sent a window before the burst would leave it while it lasts,
    // letting 30 more through than the headers' count allows.
    const t = target(slidingLog(), { headers: true, msPerRequest: 5 });
    await spend(t, first, 30);
    await t.ctx.clock.sleep(WINDOW - 100);
    const burst = await exactBurst(t.ctx, reads, first, () => other);
    expect(burst).toMatchObject({ verdict: "exact", debt: 0 });
    expect(burst.before).toBeUndefined();
    expect(burst.judged.served).toBe(100);
    expect(t.waits.slice(1)).toHaveLength(1);
    expect(nth(t.waits, 1)).toBeLessThanOrEqual(WINDOW / 10);
  });

  it("does not trust headers counting fewer than the run sent: the burst after a window without requests decides", async () => {
    // Serves 101 and counts down from 101: its count is one short of the run's own.
    const t = target(slidingLog(LIMIT + 1), { headers: true });
    await spend(t, first, 30);
    const burst = await exactBurst(t.ctx, reads, first, () => other);
    expect(burst.before?.served).toBe(71);
    expect(burst.verdict).toBe("too many");
  });

  it("fails a target refusing before the limit on a budget nothing used for a window", async () => {
    const t = target(slidingLog(60));
    const burst = await exactBurst(t.ctx, reads, first, () => other);
    expect(burst.verdict).toBe("too few");
    expect(burst.judged.served).toBe(60);
  });

  it("passes a limit shared by every token once a window without requests has emptied it", async () => {
    const t = target(slidingLog(), { shared: true });
    await spend(t, other, 45);
    const burst = await exactBurst(t.ctx, reads, first, () => other);
    expect(burst.before?.served).toBe(55);
    expect(burst).toMatchObject({ verdict: "exact" });
  });
});
