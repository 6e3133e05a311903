import type { Spec } from "../../spec/index.js";
import type { Clock } from "../model/clock.js";

export interface RateLimitOptions {
  /** Requests allowed per window (§8: 100). */
  limit: number;
  /** The window's length in ms (§8: a minute). */
  windowMs: number;
}

/** A spec's `limits.rate` (§7, §8) as the windows count it. */
export const rateLimitOf = (spec: Spec): RateLimitOptions => ({
  limit: spec.limits.rate.requests,
  windowMs: spec.limits.rate.windowSeconds * 1000,
});

/**
 * The instants of one key's accepted requests, oldest first. Those that left the window are skipped
 * by moving `start` rather than by copying the rest: with a high limit (a benchmark, the kit's
 * embedded reference) the log holds many entries, and a copy per request would cost O(limit). The
 * array is compacted once the skipped part is most of it, so a log's memory stays within `limit`
 * entries plus as many skipped ones.
 */
class HitLog {
  #times: number[] = [];
  #start = 0;

  get size(): number {
    return this.#times.length - this.#start;
  }

  get oldest(): number | undefined {
    return this.#times[this.#start];
  }

  push(at: number): void {
    this.#times.push(at);
  }

  /** Skips every instant at or before `cutoff`. */
  dropUntil(cutoff: number): void {
    while (this.#start < this.#times.length && (this.#times[this.#start] as number) <= cutoff)
      this.#start += 1;
    if (this.#start === this.#times.length) {
      this.#times = [];
      this.#start = 0;
    } else if (this.#start > 64 && this.#start * 2 > this.#times.length) {
      this.#times = this.#times.slice(this.#start);
      this.#start = 0;
    }
  }
}

/**
 * A rolling window (spec-gaps #21): at any instant, at most `limit` requests were accepted in the
 * last `windowMs`. A fixed window (express-rate-limit's memory store) resets at fixed instants, which
 * lets a client make twice the limit across a boundary; §8 promises no such burst. Only accepted
 * requests are logged, so memory per key stays within `limit` entries however hard a client pushes.
 */
export class RollingWindows {
  readonly #hits = new Map<string, HitLog>();
  readonly #limit: number;
  readonly #windowMs: number;
  readonly #clock: Clock;
  #sinceSweep = 0;

  constructor(options: RateLimitOptions, clock: Clock) {
    this.#limit = options.limit;
    this.#windowMs = options.windowMs;
    this.#clock = clock;
  }

  /** Requests allowed per window. */
  get limit(): number {
    return this.#limit;
  }

  get windowMs(): number {
    return this.#windowMs;
  }

  /** Counts one request of `key` if the window has room; `totalHits` past `limit` means refused. */
  increment(key: string): { totalHits: number; resetTime: Date } {
    const now = this.#clock.now().getTime();
    this.#maybeSweep(now);
    let log = this.#hits.get(key);
    if (log === undefined) {
      log = new HitLog();
      this.#hits.set(key, log);
    }
    log.dropUntil(now - this.#windowMs);
    const accepted = log.size < this.#limit;
    if (accepted) log.push(now);
    const totalHits = accepted ? log.size : this.#limit + 1;
    // The next slot frees when the oldest accepted request leaves the window.
    return { totalHits, resetTime: new Date((log.oldest ?? now) + this.#windowMs) };
  }

  /** Where `key` stands now, without counting: requests in the window and when its oldest leaves. */
  peek(key: string): { used: number; resetTime: Date } {
    const now = this.#clock.now().getTime();
    const log = this.#hits.get(key);
    log?.dropUntil(now - this.#windowMs);
    return { used: log?.size ?? 0, resetTime: new Date((log?.oldest ?? now) + this.#windowMs) };
  }

  resetKey(key: string): void {
    this.#hits.delete(key);
  }

  resetAll(): void {
    this.#hits.clear();
  }

  // Keys of clients that went away would otherwise stay forever.
  #maybeSweep(now: number): void {
    this.#sinceSweep += 1;
    if (this.#sinceSweep < 10_000) return;
    this.#sinceSweep = 0;
    for (const [key, log] of this.#hits) {
      log.dropUntil(now - this.#windowMs);
      if (log.size === 0) this.#hits.delete(key);
    }
  }
}
