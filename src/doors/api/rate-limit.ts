import type { Response } from "express";
import { ApiError } from "../../model/errors.js";
import type { Credentials } from "./credentials.js";

/**
 * §8: beyond the limit, 429 rate_limited. The request is counted against its key (its token, or its
 * client's address without a known one, spec-gaps #21) in the state's rolling windows
 * (src/store/windows.ts); the headers (`RateLimit`/`RateLimit-Policy` of the IETF draft, `Retry-After`
 * on 429) are written from the state's clock, so that a client told to wait N seconds is served once
 * N seconds have passed on the server's clock. Every counted answer carries them, refusals included.
 */
export function rateLimit(who: Credentials, res: Response): void {
  const { state, rateLimitKey } = who;
  const windows = state.rateLimits;
  const { limit, windowMs } = windows;
  const { totalHits, resetTime } = windows.increment(rateLimitKey);
  const untilReset = Math.max(0, Math.ceil((resetTime.getTime() - state.clock.now().getTime()) / 1000));
  // The policy is named after what was counted: the token, or the address without a known token.
  const policy = rateLimitKey.startsWith("token:") ? "per-token" : "per-address";
  res.setHeader("RateLimit-Policy", `"${policy}"; q=${limit}; w=${Math.ceil(windowMs / 1000)}`);
  res.setHeader("RateLimit", `"${policy}"; r=${Math.max(0, limit - totalHits)}; t=${untilReset}`);
  if (totalHits > limit) {
    res.setHeader("Retry-After", String(Math.max(1, untilReset)));
    throw new ApiError("rateLimited", `More than ${limit} requests in the rate-limit window`);
  }
}
