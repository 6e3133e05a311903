import {
  rateLimit,
  type AugmentedRequest,
  type ClientRateLimitInfo,
  type Store as RateLimitStore,
} from "express-rate-limit";
import type { Request, RequestHandler, Response } from "express";
import type { Clock } from "../clock.js";
import { ApiError } from "../errors.js";

export interface RateLimitOptions {
  /** Requests allowed per window (§8: 100). */
  limit: number;
  /** The window's length in ms (§8: a minute). */
  windowMs: number;
}

/**
 * A rolling window (spec-gaps #21): at any instant, at most `limit` requests were accepted in the
 * last `windowMs`. express-rate-limit's own memory store resets at fixed instants, which lets a
 * client make twice the limit across a boundary; §8 promises no such burst. Only accepted requests
 * are logged, so memory per key stays within `limit` entries however hard a client pushes.
 */
export class RollingWindowStore implements RateLimitStore {
  readonly #hits = new Map<string, number[]>();
  readonly #limit: number;
  readonly #windowMs: number;
  readonly #clock: Clock;
  #sinceSweep = 0;

  constructor(options: RateLimitOptions, clock: Clock) {
    this.#limit = options.limit;
    this.#windowMs = options.windowMs;
    this.#clock = clock;
  }

  get options(): RateLimitOptions {
    return { limit: this.#limit, windowMs: this.#windowMs };
  }

  increment(key: string): ClientRateLimitInfo {
    const now = this.#clock.now().getTime();
    this.#maybeSweep(now);
    const log = this.#prune(key, now);
    const accepted = log.length < this.#limit;
    if (accepted) log.push(now);
    this.#hits.set(key, log);
    const totalHits = accepted ? log.length : this.#limit + 1;
    // The next slot frees when the oldest accepted request leaves the window.
    return { totalHits, resetTime: new Date((log[0] ?? now) + this.#windowMs) };
  }

  decrement(key: string): void {
    this.#hits.get(key)?.pop();
  }

  resetKey(key: string): void {
    this.#hits.delete(key);
  }

  resetAll(): void {
    this.#hits.clear();
  }

  #prune(key: string, now: number): number[] {
    const log = this.#hits.get(key) ?? [];
    let drop = 0;
    while (drop < log.length && (log[drop] as number) <= now - this.#windowMs) drop += 1;
    return drop === 0 ? log : log.slice(drop);
  }

  // Keys of clients that went away would otherwise stay forever.
  #maybeSweep(now: number): void {
    this.#sinceSweep += 1;
    if (this.#sinceSweep < 10_000) return;
    this.#sinceSweep = 0;
    for (const key of [...this.#hits.keys()]) {
      if (this.#prune(key, now).length === 0) this.#hits.delete(key);
    }
  }
}

/**
 * §8: beyond the limit, 429 rate_limited. express-rate-limit counts, with the store above; the
 * headers (`RateLimit`/`RateLimit-Policy` of the IETF draft, `Retry-After` on 429) are written here
 * from the injected clock, because the library reads the process clock for them, and a client told
 * to wait N seconds must be served once N seconds have passed on the server's clock.
 */
export function rateLimitMiddleware(counters: RollingWindowStore, clock: Clock): RequestHandler[] {
  const options = counters.options;
  const windowSeconds = Math.ceil(options.windowMs / 1000);
  const secondsUntil = (at: Date | undefined) =>
    Math.max(0, Math.ceil(((at?.getTime() ?? 0) - clock.now().getTime()) / 1000));
  const info = (req: Request) => (req as Partial<AugmentedRequest>).rateLimit;
  const setHeaders = (req: Request, res: Response) => {
    // The policy is named after what was counted: the token, or the address without a known token.
    const policy = res.locals.identity?.rateLimitKey.startsWith("token:") ? "per-token" : "per-address";
    res.setHeader("RateLimit-Policy", `"${policy}"; q=${options.limit}; w=${windowSeconds}`);
    res.setHeader(
      "RateLimit",
      `"${policy}"; r=${info(req)?.remaining ?? 0}; t=${secondsUntil(info(req)?.resetTime)}`,
    );
  };
  const limiter = rateLimit({
    windowMs: options.windowMs,
    limit: options.limit,
    store: counters,
    standardHeaders: false,
    legacyHeaders: false,
    keyGenerator: (_req, res) => res.locals.identity?.rateLimitKey ?? "unidentified",
    handler: (req, res, next) => {
      setHeaders(req, res);
      res.setHeader("Retry-After", String(Math.max(1, secondsUntil(info(req)?.resetTime))));
      next(new ApiError("rate_limited", `More than ${options.limit} requests in the rate-limit window`));
    },
  });
  const announce: RequestHandler = (req, res, next) => {
    setHeaders(req, res);
    next();
  };
  return [limiter, announce];
}
