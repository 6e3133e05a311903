import { rateLimit, type Store as RateLimitStore } from "express-rate-limit";
import type { RequestHandler, Response } from "express";
import { ApiError } from "../../model/errors.js";
import type { ReferenceState } from "../../store/state.js";
import type { RollingWindows } from "../../store/windows.js";
import { apiContext } from "./context.js";

/**
 * §8: beyond the limit, 429 rate_limited. express-rate-limit counts, in the state's rolling windows
 * (src/store/windows.ts); the headers (`RateLimit`/`RateLimit-Policy` of the IETF draft, `Retry-After`
 * on 429) are written here from the state's clock, because the library reads the process clock for
 * them, and a client told to wait N seconds must be served once N seconds have passed on the server's
 * clock. Each state counts with its own limiter.
 */
export function rateLimitStep(): RequestHandler {
  const limiters = new WeakMap<ReferenceState, RequestHandler>();
  return (req, res, next) => {
    const { state } = apiContext(res);
    let limiter = limiters.get(state);
    if (limiter === undefined) {
      limiter = limiterOf(state);
      limiters.set(state, limiter);
    }
    limiter(req, res, next);
  };
}

function limiterOf(state: ReferenceState): RequestHandler {
  const windows = state.rateLimits;
  const { limit, windowMs } = windows.options;
  const windowSeconds = Math.ceil(windowMs / 1000);
  const secondsUntil = (at: Date) =>
    Math.max(0, Math.ceil((at.getTime() - state.clock.now().getTime()) / 1000));
  const setHeaders = (res: Response): number => {
    const { rateLimitKey } = apiContext(res);
    const { used, resetTime } = windows.peek(rateLimitKey);
    // The policy is named after what was counted: the token, or the address without a known token.
    const policy = rateLimitKey.startsWith("token:") ? "per-token" : "per-address";
    const untilReset = secondsUntil(resetTime);
    res.setHeader("RateLimit-Policy", `"${policy}"; q=${limit}; w=${windowSeconds}`);
    res.setHeader("RateLimit", `"${policy}"; r=${Math.max(0, limit - used)}; t=${untilReset}`);
    return untilReset;
  };
  const limiter = rateLimit({
    windowMs,
    limit,
    store: storeOver(windows),
    standardHeaders: false,
    legacyHeaders: false,
    // Made on a state's first request (a sandbox is born after the app), on purpose; and each state's
    // store is its own, which the library would otherwise check by keeping every store it has seen
    // (a deleted sandbox's windows with them).
    validate: { creationStack: false, unsharedStore: false },
    keyGenerator: (_req, res) => apiContext(res).rateLimitKey,
    handler: (_req, res, next) => {
      res.setHeader("Retry-After", String(Math.max(1, setHeaders(res))));
      next(new ApiError("rate_limited", `More than ${limit} requests in the rate-limit window`));
    },
  });
  return (req, res, next) => {
    void limiter(req, res, (err?: unknown) => {
      if (err === undefined) setHeaders(res);
      next(err);
    });
  };
}

/** express-rate-limit's view of the state's windows. */
const storeOver = (windows: RollingWindows): RateLimitStore => ({
  increment: (key) => windows.increment(key),
  decrement: (key) => windows.decrement(key),
  resetKey: (key) => windows.resetKey(key),
  resetAll: () => windows.resetAll(),
});
