import type { ManualClock } from "../../../src/model/clock.js";
import {
  dropHeader,
  errorReply,
  type Layer,
  mapError,
  plain,
  retarget,
  type Variant,
  wrap,
} from "./harness.js";

/** Variants of the rate limit (§8). */

/** A rate limiter in front of the reference: a fixed window per client address (spec-gaps #21). */
function perAddressLimiter(limit: number, windowMs: number, clock: ManualClock): Layer {
  const counts = new Map<string, { window: number; count: number }>();
  return {
    request(req) {
      if (req.method === "OPTIONS") return undefined;
      const now = clock.now().getTime();
      const window = Math.floor(now / windowMs);
      const entry = counts.get(req.address);
      const current = entry !== undefined && entry.window === window ? entry : { window, count: 0 };
      current.count += 1;
      counts.set(req.address, current);
      if (current.count <= limit) return undefined;
      const retry = Math.max(1, Math.ceil(((window + 1) * windowMs - now) / 1000));
      return {
        ...errorReply(429, "rate_limited", "Too many requests from this address"),
        headers: { "retry-after": String(retry) },
      };
    },
  };
}

// ---- violations: the kit must fail each one in the spec profile, naming the right check ---------------

// §8: the rate limit.
export const noRateLimit: Variant = {
  id: "no-rate-limit",
  kind: "violation",
  area: "rate-limit",
  description: "no 429, ever",
  expectFailing: ["ratelimit.burst"],
  build: async (env) => wrap(await env.reference({ rateLimit: 1_000_000_000 })),
};

export const rateLimitedWrongCode: Variant = {
  id: "rate-limited-wrong-code",
  kind: "violation",
  area: "rate-limit",
  description: "429 answers carry the code too_many_requests instead of rate_limited",
  expectFailing: ["ratelimit.burst", "run.error-envelope"],
  build: (env) =>
    plain(
      env,
      mapError(429, (error) => {
        error.code = "too_many_requests";
      }),
    ),
};

export const rateLimitedAs503: Variant = {
  id: "rate-limited-as-503",
  kind: "violation",
  area: "rate-limit",
  description: "the rate limit answers 503 instead of 429",
  expectFailing: ["ratelimit.burst", "run.no-5xx"],
  build: (env) => plain(env, mapError(429, retarget(503, "service_unavailable"))),
};

export const rateLimitNeverLifts: Variant = {
  id: "rate-limit-never-lifts",
  kind: "violation",
  area: "rate-limit",
  slow: true,
  description: "once rate-limited, a token stays blocked whatever it waits (run with --slow)",
  expectFailing: ["ratelimit.retry-after"],
  build: (env) => {
    const blocked = new Set<string>();
    return plain(env, {
      request: (req) =>
        req.token !== undefined && blocked.has(req.token.token)
          ? { ...errorReply(429, "rate_limited", "Blocked"), headers: { "retry-after": "1" } }
          : undefined,
      response(res, req) {
        if (res.status === 429 && req.token !== undefined) blocked.add(req.token.token);
      },
    });
  },
};

// ---- benign variants: other legal answers to open points; the kit must pass each one -------------------

export const noRateLimitHeaders: Variant = {
  id: "no-rate-limit-headers",
  kind: "benign",
  area: "rate-limit",
  slow: true,
  description: "no rate-limit headers at all (RateLimit, RateLimit-Policy, Retry-After), the 429 kept",
  build: (env) => plain(env, dropHeader("ratelimit", "ratelimit-policy", "retry-after")),
};

export const rateLimitPerAddress: Variant = {
  id: "rate-limit-per-address",
  kind: "benign",
  area: "rate-limit",
  description: "the rate limit counts per client address, in fixed windows, without rate-limit headers",
  build: async (env) =>
    wrap(
      await env.reference({ rateLimit: 1_000_000_000 }),
      perAddressLimiter(env.rateLimit, env.windowMs, env.clock),
      dropHeader("ratelimit", "ratelimit-policy"),
    ),
};
