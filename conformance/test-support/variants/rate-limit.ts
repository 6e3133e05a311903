import type { ManualClock } from "../../../src/model/clock.js";
import {
  dropHeader,
  errorReply,
  type Incoming,
  type Layer,
  mapError,
  retarget,
  type Wrapping,
  variantsIn,
} from "./harness.js";

const { violation, benign } = variantsIn("rate-limit");

/** Variants of the rate limit (§8). */

/** How a limiter in front of the reference counts: per what key, which answers, how many times each. */
interface Counting {
  /** The budget a request counts toward (its client address, its token, its organization). */
  key: (req: Incoming) => string;
  /** Counts a request only once answered, and only if this holds of its status (default: every request, at once). */
  counts?: (status: number) => boolean;
  /** How many times each request counts (default 1). */
  weight?: number;
  /**
   * "rolling" (default): `limit` in any window (a sliding log); "fixed": a count that resets at each
   * multiple of the window; "bucket": a token bucket of capacity `limit` refilled at `limit` a window.
   */
  reading?: "rolling" | "fixed" | "bucket";
  /** Requests served per window, when not §8's (a violation). */
  limit?: (limit: number) => number;
  /** Sends honest headers of its own count (`RateLimit: r=…`), in place of none. */
  headers?: boolean;
}

/**
 * A rate limiter in front of the reference (its own limit set out of reach): `limit` requests per
 * window, read as `counting.reading` says, counted as `counting` says; beyond it, 429 rate_limited with
 * Retry-After.
 */
function limiter(limit: number, windowMs: number, clock: ManualClock, counting: Counting): Layer {
  const logs = new Map<string, number[]>();
  const buckets = new Map<string, { tokens: number; at: number }>();
  const recent = (key: string, now: number): number[] => {
    const start = counting.reading === "fixed" ? Math.floor(now / windowMs) * windowMs - 1 : now - windowMs;
    const kept = (logs.get(key) ?? []).filter((t) => t > start);
    logs.set(key, kept);
    return kept;
  };
  const bucket = (key: string, now: number): { tokens: number; at: number } => {
    const b = buckets.get(key) ?? { tokens: limit, at: now };
    b.tokens = Math.min(limit, b.tokens + ((now - b.at) * limit) / windowMs);
    b.at = now;
    buckets.set(key, b);
    return b;
  };
  /** Requests left in the key's budget now. */
  const left = (key: string, now: number): number =>
    counting.reading === "bucket" ? Math.floor(bucket(key, now).tokens) : limit - recent(key, now).length;
  const count = (key: string): void => {
    const now = clock.now().getTime();
    for (let i = 0; i < (counting.weight ?? 1); i += 1) {
      if (counting.reading === "bucket") bucket(key, now).tokens -= 1;
      else recent(key, now).push(now);
    }
  };
  return {
    request(req) {
      if (req.method === "OPTIONS") return undefined;
      const now = clock.now().getTime();
      const key = counting.key(req);
      if (left(key, now) < 1) {
        const oldest = recent(key, now)[0] ?? now;
        const retry = Math.max(1, Math.ceil((oldest + windowMs - now) / 1000));
        return {
          ...errorReply(429, "rate_limited", "Too many requests"),
          headers: {
            "retry-after": String(retry),
            ...(counting.headers === true ? { ratelimit: `"limiter";r=0;t=${retry}` } : {}),
          },
        };
      }
      if (counting.counts === undefined) count(key);
      return undefined;
    },
    response(res, req) {
      if (req.method === "OPTIONS") return;
      if (counting.counts?.(res.status) === true) count(counting.key(req));
      if (counting.headers === true) {
        const r = Math.max(0, left(counting.key(req), clock.now().getTime()));
        res.headers.ratelimit = `"limiter";r=${r};t=${Math.ceil(windowMs / 1000)}`;
      }
    },
  };
}

const byAddress = (req: Incoming): string => req.address;
const byToken = (req: Incoming): string => req.token?.label ?? `address ${req.address}`;
const byOrganization = (req: Incoming): string => req.token?.organization ?? `address ${req.address}`;

/** A limiter counting as `counting` says, in front of the reference (its own limit and headers off). */
const limitedBy =
  (counting: Counting): Wrapping =>
  (_reference, env) => [
    limiter(counting.limit?.(env.rateLimit) ?? env.rateLimit, env.windowMs, env.clock, counting),
    dropHeader("ratelimit", "ratelimit-policy"),
  ];

/** The reference's own limit out of reach: a limiter in front counts instead. */
const NO_LIMIT = { settings: { rateLimit: 1_000_000_000 } };

// ---- violations: the kit must fail each one in the spec profile, naming the right check ---------------

// §8: the rate limit.
export const noRateLimit = violation("no-rate-limit", "no 429, ever", ["ratelimit.burst"], [], NO_LIMIT);

export const rateLimitedWrongCode = violation(
  "rate-limited-wrong-code",
  "429 answers carry the code too_many_requests instead of rate_limited",
  ["ratelimit.burst", "run.error-envelope"],
  mapError(429, (error) => {
    error.code = "too_many_requests";
  }),
);

export const rateLimitedAs503 = violation(
  "rate-limited-as-503",
  "the rate limit answers 503 instead of 429",
  ["ratelimit.burst", "run.no-5xx"],
  mapError(429, retarget(503, "service_unavailable")),
);

export const rateLimitNeverLifts = violation(
  "rate-limit-never-lifts",
  "once rate-limited, a token stays blocked whatever it waits (run with --slow)",
  ["ratelimit.retry-after"],
  () => {
    const blocked = new Set<string>();
    return {
      request: (req) =>
        req.token !== undefined && blocked.has(req.token.token)
          ? { ...errorReply(429, "rate_limited", "Blocked"), headers: { "retry-after": "1" } }
          : undefined,
      response(res, req) {
        if (res.status === 429 && req.token !== undefined) blocked.add(req.token.token);
      },
    };
  },
  { slow: true },
);

// §8: every request with a valid token counts, once, whatever its outcome (issue 16, class 3).
export const rateLimitCountsSuccessesOnly = violation(
  "rate-limit-counts-successes-only",
  "the rate limit counts only the requests it answers with success: a token may send refused requests without end",
  ["ratelimit.counts-failures"],
  limitedBy({ key: byToken, counts: (status) => status >= 200 && status < 300 }),
  NO_LIMIT,
);

export const rateLimitCountsTwice = violation(
  "rate-limit-counts-twice",
  "the rate limit counts each request twice: a token is refused after half its 100 a minute",
  ["ratelimit.not-early"],
  limitedBy({ key: byToken, weight: 2 }),
  NO_LIMIT,
);

// §8: exactly the limit, no more (issue 29).
export const rateLimitServes101st = violation(
  "rate-limit-serves-101st",
  "the rate limit serves one request more than the limit in every window (the 101st of 100 a minute), without rate-limit headers",
  ["ratelimit.burst"],
  limitedBy({ key: byToken, limit: (limit) => limit + 1 }),
  NO_LIMIT,
);

export const rateLimitServes101stSaysSo = violation(
  "rate-limit-serves-101st-says-so",
  "the rate limit serves the 101st request of the window, and its RateLimit header counts down from 101",
  ["ratelimit.burst"],
  limitedBy({ key: byToken, limit: (limit) => limit + 1, headers: true }),
  NO_LIMIT,
);

export const rateLimitOneAndAHalf = violation(
  "rate-limit-one-and-a-half",
  "the rate limit serves half as much again as the limit (150 a minute for 100), without rate-limit headers",
  ["ratelimit.burst"],
  limitedBy({ key: byToken, limit: (limit) => Math.floor(limit * 1.5) }),
  NO_LIMIT,
);

// ---- benign variants: other legal answers to open points; the kit must pass each one -------------------

export const noRateLimitHeaders = benign(
  "no-rate-limit-headers",
  "no rate-limit headers at all (RateLimit, RateLimit-Policy, Retry-After), the 429 kept",
  dropHeader("ratelimit", "ratelimit-policy", "retry-after"),
  { slow: true },
);

export const rateLimitPerAddress = benign(
  "rate-limit-per-address",
  "the rate limit counts per client address, in fixed windows, without rate-limit headers",
  limitedBy({ key: byAddress, reading: "fixed" }),
  NO_LIMIT,
);

export const rateLimitPerOrganization = benign(
  "rate-limit-per-organization",
  "the rate limit counts each organization's tokens together (requests without a token per address), without rate-limit headers",
  limitedBy({ key: byOrganization }),
  NO_LIMIT,
);

export const rateLimitSlowWayIn = benign(
  "rate-limit-slow-way-in",
  "a token's first request after a pause reaches the target a little more than one window after it was sent (a connection set up anew, a busy machine), and opens the target's count there",
  (_reference, env) => {
    const lastSeen = new Map<string, number>();
    return {
      request(req) {
        if (req.token === undefined) return undefined;
        const before = lastSeen.get(req.token.token);
        if (before === undefined || env.clock.now().getTime() - before > 2 * env.windowMs) {
          env.clock.advance(Math.round(env.windowMs * 1.1));
        }
        lastSeen.set(req.token.token, env.clock.now().getTime());
        return undefined;
      },
    };
  },
);

// The three legal readings of "100 requests per minute" (spec-gaps #21, issue 29), per token.
export const rateLimitFixedWindow = benign(
  "rate-limit-fixed-window",
  "the rate limit counts each token in fixed windows (the count resets at each whole window), without rate-limit headers",
  limitedBy({ key: byToken, reading: "fixed" }),
  NO_LIMIT,
);

export const rateLimitSlidingLog = benign(
  "rate-limit-sliding-log",
  "the rate limit keeps a log of each token's requests and serves the limit in any window, with honest RateLimit headers of its own",
  limitedBy({ key: byToken, headers: true }),
  NO_LIMIT,
);

export const rateLimitTokenBucket = benign(
  "rate-limit-token-bucket",
  "the rate limit is a token bucket per token (capacity the limit, refilled at the limit per window), without rate-limit headers",
  limitedBy({ key: byToken, reading: "bucket" }),
  NO_LIMIT,
);
